// A form generated from a section's field declarations: labels, help, defaults and rules come from shared/.
import { useState } from 'react';
import type { FieldMeta } from '../../shared/config/fields';
import { fieldsOf } from '../../shared/config/parse';
import type { Problem } from '../../shared/config/problems';
import type { Section } from '../../shared/config/section';
import type { FormValue, FormValues } from '../store/formValues';

interface Props {
  section: Section;
  values: FormValues;
  problems: Record<string, Problem>;
  onChange: (key: string, value: FormValue) => void;
  /** Shown beside a nullable choice's empty option, e.g. what it inherits. */
  emptyChoiceLabel?: (key: string) => string;
}

export function SchemaForm({ section, values, problems, onChange, emptyChoiceLabel }: Props) {
  const fields = fieldsOf(section);
  const render = ({ key, meta }: { key: string; meta: FieldMeta }) => (
    <Field
      key={key}
      id={`${section.id}-${key}`}
      meta={meta}
      value={values[key] ?? ''}
      problem={problems[key]}
      onChange={(v) => onChange(key, v)}
      emptyLabel={emptyChoiceLabel?.(key)}
    />
  );
  const basic = fields.filter((f) => f.meta.group !== 'advanced');
  const advanced = fields.filter((f) => f.meta.group === 'advanced');
  const advancedHasProblem = advanced.some((f) => problems[f.key]);
  // A problem opens the group; fixing it must not snap the group shut under the user's cursor.
  const [advancedOpen, setAdvancedOpen] = useState(false);
  return (
    <div className="form-grid">
      {basic.map(render)}
      {advanced.length > 0 && (
        <details
          className="advanced"
          open={advancedOpen || advancedHasProblem}
          onToggle={(e) => setAdvancedOpen(e.currentTarget.open)}
        >
          <summary>Advanced</summary>
          {advanced.map(render)}
        </details>
      )}
    </div>
  );
}

interface FieldProps {
  id: string;
  meta: FieldMeta;
  value: FormValue;
  problem: Problem | undefined;
  onChange: (value: FormValue) => void;
  emptyLabel: string | undefined;
}

function Field({ id, meta, value, problem, onChange, emptyLabel }: FieldProps) {
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const described = problem ? `${helpId} ${errorId}` : helpId;
  const common = { id, 'aria-describedby': described, 'aria-invalid': problem ? true : undefined };
  // The marker stays outside the <label> so the accessible name is the label alone; `required` says it.
  const label = (
    <span className="label-row">
      <label htmlFor={id}>{meta.label}</label>
      {meta.required && (
        <span className="required-mark" aria-hidden="true">
          *
        </span>
      )}
    </span>
  );
  let control;
  if (meta.kind === 'boolean') {
    control = (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(e) => onChange(e.target.checked)}
      />
    );
  } else if (meta.kind === 'choice') {
    control = (
      <select {...common} value={String(value)} onChange={(e) => onChange(e.target.value)}>
        {meta.default === null && <option value="">{emptyLabel ?? '(not set)'}</option>}
        {meta.choices?.map((c) => (
          <option key={String(c)} value={String(c)}>
            {String(c)}
          </option>
        ))}
      </select>
    );
  } else {
    control = (
      <input
        {...common}
        type={meta.kind === 'secret' ? 'password' : 'text'}
        inputMode={meta.kind === 'integer' ? 'numeric' : undefined}
        autoComplete={meta.kind === 'secret' ? 'new-password' : 'off'}
        spellCheck={false}
        required={meta.required}
        value={String(value)}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div className={`field field-${meta.kind}${problem ? ' has-problem' : ''}`}>
      {label}
      {control}
      <p id={helpId} className="help">
        {meta.help}
        {meta.default !== undefined &&
          meta.default !== null &&
          meta.kind !== 'boolean' &&
          ` Default: ${String(meta.default)}.`}
      </p>
      <p id={errorId} className="problem" aria-live="polite">
        {problem?.message}
      </p>
    </div>
  );
}
