import { agentTypes } from '../shared/agents';
import { parseSection } from '../shared/config/parse';
import { rate, type Benchmark } from './harness';

const good = {
  connectionName: 'c',
  host: 'h',
  databaseName: 'd',
  username: 'u',
  password: 'p',
  port: 1433,
  enableTls: true,
};
const bad = { ...good, port: 70000, enableTls: 'yes', extra: 1 };
const journalGood = {
  connectionName: 'c',
  host: 'h',
  databaseName: 'd',
  username: 'u',
  password: 'p',
  syncLibrary: 'sync',
};

export const configBenchmark: Benchmark = {
  name: 'config model',
  run: async () => {
    const section = agentTypes['change-tracking'].sections.hostCredentials;
    const journal = agentTypes.journal.sections.hostCredentials;
    return [
      {
        name: 'config.parse.valid',
        value: Math.round(rate(() => parseSection(section, good))),
        unit: 'parses/s',
      },
      {
        name: 'config.parse.invalid',
        value: Math.round(rate(() => parseSection(section, bad))),
        unit: 'parses/s',
      },
      {
        name: 'config.parse.journal.valid',
        value: Math.round(rate(() => parseSection(journal, journalGood))),
        unit: 'parses/s',
      },
    ];
  },
};
