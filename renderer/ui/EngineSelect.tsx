// The engine a screen works against: the local engine or a remote profile, one picker for every screen.
import { useStore } from '../store';

export function EngineSelect({
  id,
  value,
  onChange,
  placeholder,
}: {
  id: string;
  value: string;
  onChange: (profileId: string) => void;
  /** A first, disabled choice shown while none is picked. */
  placeholder?: string;
}) {
  const profiles = useStore((s) => s.profiles);
  return (
    <div className="field">
      <label htmlFor={id}>Engine</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        {placeholder && (
          <option value="" disabled>
            {placeholder}
          </option>
        )}
        {profiles.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </div>
  );
}
