// One argument parser for every command line of the project (`npm run engine`, `web`, `sandbox`):
// `--help` prints the usage and exits 0; an unknown option, a missing value or a bad port prints one
// line saying what is wrong, then the usage, and exits 2. Never a stack trace.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandLine<O extends Options> {
  /** The usage text: first line `Usage: …`, then one line per option. */
  usage: string;
  options: O;
  allowPositionals?: boolean;
}

export class UsageError extends Error {}

/** Parses `argv`; throws UsageError with a plain sentence for anything it cannot take. */
export function parseCommandLine<O extends Options>(command: CommandLine<O>, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
  } catch (error) {
    // node:util's messages are plain already ("Unknown option '--x'"); its error codes are not shown.
    throw new UsageError(error instanceof Error ? error.message.split('. ')[0] : String(error));
  }
}

/** A TCP port from an option's text: a whole number from 0 (any free port) to 65535. */
export function portOption(name: string, text: string | undefined): number {
  const port = Number(text);
  if (text !== undefined && /^\d+$/.test(text) && port <= 65535) return port;
  throw new UsageError(
    `--${name} must be a whole number from 0 to 65535 (0 picks a free port); got "${text}"`,
  );
}

/** Runs a command line's main: usage and plain errors on stderr, exit codes 0 (help) and 2 (misuse). */
export function runCommandLine<O extends Options>(
  command: CommandLine<O>,
  main: (parsed: ReturnType<typeof parseCommandLine<O>>) => Promise<void>,
  argv = process.argv.slice(2),
): void {
  const fail = (error: unknown): void => {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${command.usage}\n`);
    process.exit(2);
  };
  try {
    const parsed = parseCommandLine(command, argv);
    if ((parsed.values as { help?: boolean }).help) {
      process.stdout.write(`${command.usage}\n`);
      process.exit(0);
    }
    main(parsed).catch(fail);
  } catch (error) {
    fail(error);
  }
}
