// Reading a request body: a size limit enforced while reading, and JSON that must parse, with no
// member named twice in one object.
import type { IncomingMessage } from 'node:http';
import { duplicateMember, duplicateMemberText, escapePointer } from '../../../shared/jsonMembers';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    /** The JSON Pointer of the member at fault, when one is. */
    readonly pointer?: string,
  ) {
    super(message);
  }
}

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const tooLarge = () => new HttpError(413, 'Body too large', `The body is larger than ${maxBytes} bytes.`);
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'Malformed body', 'The body is not valid UTF-8.');
  }
}

export function isJsonContentType(header: string | undefined): boolean {
  // application/json only (parameters such as charset allowed): no other media type is parsed as JSON.
  return /^application\/json\s*(;|$)/i.test(header ?? '');
}

/** Reads a JSON body: 415 for another content type, 413 past the limit, 400 when it does not parse or names a member twice. */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
  emptyAs: unknown = undefined,
): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new HttpError(
      415,
      'Unsupported media type',
      'Send the body as JSON with Content-Type: application/json.',
    );
  }
  const text = await readBody(req, maxBytes);
  if (text.trim() === '' && emptyAs !== undefined) return emptyAs;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch (error) {
    const where = error instanceof SyntaxError ? `: ${error.message}` : '';
    throw new HttpError(400, 'Malformed JSON', `The body is not valid JSON${where.slice(0, 120)}.`);
  }
  const duplicate = duplicateMember(text);
  if (duplicate)
    throw new HttpError(
      400,
      'Duplicate member',
      duplicateMemberText(duplicate),
      `${duplicate.pointer}/${escapePointer(duplicate.member)}`,
    );
  return parsed;
}
