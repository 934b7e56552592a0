/** The API's messages for one field, tied to its input by id (aria-describedby / aria-errormessage). */
export function FieldError({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages || messages.length === 0) return null;
  return (
    <p id={id} class="field-error">
      {messages.join(' ')}
    </p>
  );
}

/** The attributes that tie an input to its error message. */
export const errorProps = (id: string, messages?: string[]) =>
  messages && messages.length > 0 ? { 'aria-invalid': true as const, 'aria-describedby': id } : {};
