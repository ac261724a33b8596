// A labelled drop-down of values with a first choice meaning "all of them" (the empty value).
export function FilterSelect({
  label,
  name,
  all,
  value,
  options,
  onChange,
  disabled,
}: {
  /** The visible label. */
  label: string;
  /** The accessible name, when the visible label alone is ambiguous on its screen. */
  name?: string;
  all: string;
  value: string;
  options: readonly { value: string; label: string }[];
  onChange: (value: string) => void;
  disabled?: boolean;
}) {
  return (
    <label>
      {label}
      <select aria-label={name} value={value} onChange={(e) => onChange(e.target.value)} disabled={disabled}>
        <option value="">{all}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}
