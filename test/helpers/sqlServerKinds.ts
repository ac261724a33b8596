// SQL Server tables of every type the change-tracking agent maps, with values at their edges, and the
// changes each suite makes to them: written once here for every suite that replicates them.
export const SQL_SERVER_KINDS = `
      CREATE TABLE dbo.Kinds (Id INT PRIMARY KEY, At DATETIMEOFFSET(7) NULL, Said NVARCHAR(40) NULL,
        Exact DATETIME2(7) NULL, Bytes VARBINARY(8) NULL);
      ALTER TABLE dbo.Kinds ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Kinds VALUES (1, '2026-11-24 10:00:00.1234567 +05:30', N'Zürich — 東京 🚀', '2026-11-24 23:59:59.9999999', 0x00FF10);
      CREATE TABLE dbo.Exacts (K DECIMAL(38,10) PRIMARY KEY, Big DECIMAL(38,10) NULL, Cash MONEY NULL,
        Petty SMALLMONEY NULL, Stamp ROWVERSION, Doc XML NULL);
      ALTER TABLE dbo.Exacts ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Exacts (K, Big, Cash, Petty, Doc) VALUES
        (1234567890123456789012345678.0000000001, 9999999999999999999999999999.9999999999, 922337203685477.5807, 214748.3647, N'<r a="ü">東京 🚀</r>'),
        (1234567890123456789012345678.0000000002, -9999999999999999999999999999.9999999999, -922337203685477.5808, -214748.3648, NULL),
        (1234567890123456789012345678.0000000003, 0.0000000001, 0.0001, -0.0001, N'<e/>'),
        (-5.5, 12.5, 1, 0, NULL),
        (7, NULL, NULL, NULL, NULL);
      CREATE TABLE dbo.Legacy (Id INT PRIMARY KEY, At SMALLDATETIME NULL, Note TEXT NULL, Said NTEXT NULL,
        Picture IMAGE NULL, Code CHAR(5) NULL, Wide NCHAR(4) NULL, Ratio FLOAT NULL, Small REAL NULL,
        Flag BIT NULL, Guid UNIQUEIDENTIFIER NULL);
      ALTER TABLE dbo.Legacy ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Legacy VALUES (1, '2026-11-24 10:00:29.999', 'plain', N'Ελληνικά 東京 🚀', 0x89504E47,
        'ab', N'é', 0.1, 0.1, 1, '6F9619FF-8B86-D011-B42D-00C04FC964FF');
      CREATE TABLE dbo.Places (Node HIERARCHYID PRIMARY KEY, Spot GEOGRAPHY NULL, Shape GEOMETRY NULL);
      ALTER TABLE dbo.Places ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Places VALUES ('/1/', geography::Point(47.651, -122.349, 4326), 'POLYGON ((0 0, 10 0, 10 10, 0 0))'),
        (hierarchyid::Parse('/1/2.5/'), NULL, 'LINESTRING (1 2 3, 4 5 6)'),
        ('/2/', 'POINT (5.5 -33.9)', 'MULTIPOINT ((1 2), (3 4))');
      CREATE TABLE dbo.Settings (Id INT PRIMARY KEY, V SQL_VARIANT NULL);
      ALTER TABLE dbo.Settings ENABLE CHANGE_TRACKING;
      INSERT INTO dbo.Settings VALUES (1, 12.50), (2, N'東京 🚀'), (3, 'abc'),
        (4, CAST('2026-11-24 10:00:00.1234567' AS datetime2(7))), (5, 5), (6, 0x00FF), (7, CAST(0.1 AS float)),
        (8, CAST(922337203685477.5807 AS money)), (9, NULL), (10, 12345678901234567890.123456789),
        (11, CAST('2026-11-24 10:00:00.1234567 +05:30' AS datetimeoffset(7)));`;
export const KIND_CHANGES = `INSERT INTO dbo.Kinds VALUES (2, '1999-12-31 23:00:00.0000001 -08:00', N'Ελληνικά ✓', '0001-01-01 00:00:00.0000000', 0x);
      UPDATE dbo.Kinds SET Said = N'שלום 👋' WHERE Id = 1;`;
export const EXACT_CHANGES = `UPDATE dbo.Exacts SET Big = 1234567890123456789012345678.1234567891, Cash = 0.0099 WHERE K = 7;
        INSERT INTO dbo.Exacts (K, Big, Cash, Petty, Doc) VALUES (1234567890123456789012345678.0000000004, -0.0000000001, 12345678901.2345, 1.5, N'<n>שלום</n>');`;
export const LEGACY_CHANGES = `INSERT INTO dbo.Legacy VALUES (2, '2079-06-06 23:59:00', NULL, N'שלום', 0x, 'x', NULL, -1.7976931348623157E308, 3.4E38, 0, NULL);
        UPDATE dbo.Legacy SET Note = 'changed', Ratio = 5e-324 WHERE Id = 1;`;

export const PLACE_CHANGES = `UPDATE dbo.Places SET Shape = geometry::STGeomFromText('GEOMETRYCOLLECTION (POINT (4 6), POINT EMPTY)', 3857) WHERE Node = '/2/';
        INSERT INTO dbo.Places VALUES ('/1/1/', 'POINT (0 0)', NULL);
        DELETE FROM dbo.Places WHERE Node = '/1/';`;

export const SETTING_CHANGES = `UPDATE dbo.Settings SET V = N'שלום' WHERE Id = 5;
        INSERT INTO dbo.Settings VALUES (12, CAST(-1.5E-300 AS float));`;
