// The sample database of sandbox mode: a small sales schema a DBA recognises, with Change Tracking on
// some tables and off on another, a table without a primary key, and logins from full to limited,
// so every check of the change-tracking agent has something to pass and something to fail.
import type { SandboxHost, SandboxLogin } from './host';

export const SEED_DATABASE = 'Sales';

/** The login with what the change-tracking agent needs: sandbox mode's pipeline uses it. */
export const SEED_AGENT_LOGIN: SandboxLogin = {
  name: 'cdc_agent',
  password: 'Agent-Passw0rd',
  defaultDatabase: SEED_DATABASE,
};

export const SEED_LOGINS: SandboxLogin[] = [
  { name: 'sa', password: 'Sandbox-Passw0rd', defaultDatabase: 'master' },
  SEED_AGENT_LOGIN,
  {
    name: 'cdc_limited',
    password: 'Limited-Passw0rd',
    defaultDatabase: SEED_DATABASE,
    permissions: {
      viewCatalog: false,
      viewChangeTracking: false,
      createSchema: false,
      write: false,
      viewServerState: false,
    },
  },
];

const SCRIPT = `
ALTER DATABASE Sales SET ALLOW_SNAPSHOT_ISOLATION ON;
ALTER DATABASE Sales SET CHANGE_TRACKING = ON (CHANGE_RETENTION = 2 DAYS, AUTO_CLEANUP = ON);

CREATE TABLE dbo.Customers (
  CustomerId INT IDENTITY(1, 1) NOT NULL,
  Name NVARCHAR(100) NOT NULL,
  Email VARCHAR(254) NULL,
  Country CHAR(2) NOT NULL,
  CreatedAt DATETIME2(3) NOT NULL,
  CONSTRAINT PK_Customers PRIMARY KEY CLUSTERED (CustomerId)
);
CREATE TABLE dbo.Products (
  Sku VARCHAR(20) NOT NULL PRIMARY KEY,
  Title NVARCHAR(200) NOT NULL,
  UnitPrice DECIMAL(10, 2) NOT NULL,
  Discontinued BIT NOT NULL DEFAULT 0
);
CREATE TABLE dbo.Orders (
  OrderId INT IDENTITY(1000, 1) NOT NULL PRIMARY KEY,
  CustomerId INT NOT NULL,
  OrderedAt DATETIME2(7) NOT NULL,
  Status NVARCHAR(20) NOT NULL,
  Total DECIMAL(12, 2) NOT NULL,
  RowGuid UNIQUEIDENTIFIER NOT NULL
);
CREATE TABLE dbo.OrderLines (
  OrderId INT NOT NULL,
  LineNo SMALLINT NOT NULL,
  Sku VARCHAR(20) NOT NULL,
  Quantity INT NOT NULL,
  Price DECIMAL(10, 2) NOT NULL,
  CONSTRAINT PK_OrderLines PRIMARY KEY (OrderId, LineNo)
);
CREATE TABLE dbo.AuditLog (
  LoggedAt DATETIME2(3) NOT NULL,
  Message NVARCHAR(400) NOT NULL
);

ALTER TABLE dbo.Customers ENABLE CHANGE_TRACKING WITH (TRACK_COLUMNS_UPDATED = ON);
ALTER TABLE dbo.Orders ENABLE CHANGE_TRACKING;
ALTER TABLE dbo.OrderLines ENABLE CHANGE_TRACKING;

INSERT INTO dbo.Customers (Name, Email, Country, CreatedAt) VALUES
  (N'Ada Lovelace', 'ada@example.com', 'GB', '2026-01-05 09:00:00.000'),
  (N'Grace Hopper', 'grace@example.com', 'US', '2026-01-06 10:30:00.000'),
  (N'Marie Curie', NULL, 'FR', '2026-01-07 11:45:00.000'),
  (N'Émilie du Châtelet', 'emilie@example.fr', 'FR', '2026-02-01 08:15:00.000');
INSERT INTO dbo.Products (Sku, Title, UnitPrice) VALUES
  ('BK-001', N'Notes on the Analytical Engine', 29.90),
  ('BK-002', N'Compiler Construction Handbook', 54.00),
  ('PN-010', N'Fountain pen, black', 12.50);
INSERT INTO dbo.Orders (CustomerId, OrderedAt, Status, Total, RowGuid) VALUES
  (1, '2026-03-01 12:00:00.1234567', N'Shipped', 42.40, '0E984725-C51C-4BF4-9960-E1C80E27ABA0'),
  (2, '2026-03-02 15:30:00.0000000', N'Open', 54.00, '6F9619FF-8B86-D011-B42D-00C04FC964FF');
INSERT INTO dbo.OrderLines (OrderId, LineNo, Sku, Quantity, Price) VALUES
  (1000, 1, 'BK-001', 1, 29.90),
  (1000, 2, 'PN-010', 1, 12.50),
  (1001, 1, 'BK-002', 1, 54.00);
INSERT INTO dbo.AuditLog (LoggedAt, Message) VALUES ('2026-03-01 12:00:01.000', N'Order 1000 shipped');
`;

/** Loads the sample data into a running sandbox host, through its own T-SQL. */
export async function seed(host: SandboxHost): Promise<void> {
  const sa = SEED_LOGINS[0];
  const outcome = host.login({
    tdsVersion: 0x74000004,
    packetSize: 4096,
    hostName: 'seed',
    userName: sa?.name ?? 'sa',
    password: sa?.password ?? '',
    appName: 'seed',
    serverName: '',
    library: '',
    language: '',
    database: SEED_DATABASE,
    usesSspi: false,
  });
  if (!outcome.ok) throw new Error(`The seed could not log in: ${outcome.error.message}`);
  try {
    const results = await outcome.session.batch(SCRIPT, new AbortController().signal);
    const failed = results.flatMap((r) => r.messages ?? []).find((m) => m.kind === 'error');
    if (failed) throw new Error(`The seed script failed: ${failed.message}`);
  } finally {
    outcome.session.close();
  }
}
