// The one parser of an engine's address, for the profile form's validation and the client alike:
// http or https, and no user name or password in it (they would end up in messages and logs).
export type EngineUrlResult = { ok: true; url: URL } | { ok: false; reason: string };

export function parseEngineUrl(text: string): EngineUrlResult {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `The engine address "${text.slice(0, 200)}" is not a URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'The engine address must start with http:// or https://.' };
  if (url.username || url.password)
    return { ok: false, reason: 'Put the token in the profile, not in the engine address.' };
  return { ok: true, url };
}
