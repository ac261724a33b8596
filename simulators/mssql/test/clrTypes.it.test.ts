// hierarchyid, geography and geometry in the simulated SQL Server, through the real `mssql` driver:
// stored as SQL Server serializes them (bytes checked against Microsoft's own examples), sent as UDT
// values, listed in sys.types and sys.columns as the system CLR types, made from text, static methods
// and binary, and shown by ToString/STAsText/STSrid and CAST.
import sql from 'mssql';
import { describe, expect, it } from 'vitest';
import { refused, sandboxSession } from '../../../test/helpers/sandbox';

const session =
  sandboxSession(`CREATE TABLE dbo.Places (Id INT PRIMARY KEY, Node HIERARCHYID NULL, Spot GEOGRAPHY NULL,
      Shape GEOMETRY NULL);
    INSERT INTO dbo.Places VALUES
      (1, '/1/1/3/', geography::Point(47.651, -122.349, 4326), 'POLYGON ((0 0, 10 0, 10 10, 0 0), (1 1, 2 1, 2 2, 1 1))'),
      (2, hierarchyid::Parse('/1/-2.18/'), 'LINESTRING (-122.36 47.656, -122.343 47.656)',
        geometry::STGeomFromText('GEOMETRYCOLLECTION (POINT (4 6), LINESTRING (4 6 1, 7 10 2))', 3857)),
      (3, '/', NULL, 'POINT EMPTY');`);
const { run } = session;

describe('stored and sent as SQL Server does', () => {
  it('hierarchyid bytes are the ordered bit patterns: /1/1/3/ is 0x5ADE, /1/-2.18/ 0x59FB0540, the root none', async () => {
    const r = await session.pool
      .request()
      .query<{ Id: number; Node: Buffer }>('SELECT Id, Node FROM dbo.Places ORDER BY Id');
    expect(r.recordset.map((x) => x.Node.toString('hex').toUpperCase())).toEqual(['5ADE', '59FB0540', '']);
    // A UDT column, as SQL Server describes one.
    const meta = r.recordset.columns.Node as unknown as { type: { name?: string; declaration?: string } };
    expect(String(meta.type.declaration ?? meta.type.name ?? meta.type)).toMatch(/udt/i);
  });

  it('a geography point is SRID, version 1, properties 0x0C and latitude then longitude', async () => {
    const r = await session.pool
      .request()
      .query<{ Spot: Buffer; Parsed: { srid: number; points: { lat: number; lng: number }[] } }>(
        'SELECT CONVERT(varbinary(max), Spot) AS Spot, Spot AS Parsed FROM dbo.Places WHERE Id = 1',
      );
    const expected = Buffer.alloc(22);
    expected.writeInt32LE(4326);
    expected[4] = 1;
    expected[5] = 0x0c;
    expected.writeDoubleLE(47.651, 6);
    expected.writeDoubleLE(-122.349, 14);
    expect(r.recordset[0]?.Spot.toString('hex')).toBe(expected.toString('hex'));
    // The driver's own MS-SSCLRT reader (mssql parses geography columns) reads the same point.
    expect(r.recordset[0]?.Parsed.srid).toBe(4326);
    expect(r.recordset[0]?.Parsed.points).toMatchObject([{ lat: 47.651, lng: -122.349 }]);
  });

  it('ToString, STAsText, STSrid and CAST show the values; hierarchyid orders depth first', async () => {
    const r = await session.pool
      .request()
      .query<{ Id: number; Path: string; Wkt: string | null; Srid: number; Level: number }>(
        `SELECT p.Id, CAST(p.Node AS nvarchar(4000)) AS Path, p.Shape.STAsText() AS Wkt, p.Shape.STSrid AS Srid,
          p.Node.GetLevel() AS Level
        FROM dbo.Places AS p ORDER BY p.Node`,
      );
    expect(r.recordset).toEqual([
      { Id: 3, Path: '/', Wkt: 'POINT EMPTY', Srid: 0, Level: 0 },
      {
        Id: 2,
        Path: '/1/-2.18/',
        Wkt: 'GEOMETRYCOLLECTION (POINT (4 6), LINESTRING (4 6 1, 7 10 2))',
        Srid: 3857,
        Level: 2,
      },
      {
        Id: 1,
        Path: '/1/1/3/',
        Wkt: 'POLYGON ((0 0, 10 0, 10 10, 0 0), (1 1, 2 1, 2 2, 1 1))',
        Srid: 0,
        Level: 3,
      },
    ]);
    const spot = await session.pool
      .request()
      .query<{ Text: string }>('SELECT Spot.ToString() AS Text FROM dbo.Places WHERE Id = 2');
    expect(spot.recordset[0]?.Text).toBe('LINESTRING (-122.36 47.656, -122.343 47.656)');
  });

  it('binary converts to the type and back unchanged; a parameter compares as a hierarchyid', async () => {
    const bytes = (
      await session.pool
        .request()
        .query<{ B: Buffer }>('SELECT CONVERT(varbinary(max), Shape) AS B FROM dbo.Places WHERE Id = 1')
    ).recordset[0]?.B as Buffer;
    await session.pool
      .request()
      .input('b', sql.VarBinary(sql.MAX), bytes)
      .query('INSERT INTO dbo.Places (Id, Shape) VALUES (4, @b)');
    const back = await session.pool
      .request()
      .input('node', sql.NVarChar, '/1/1/3/')
      .query<{ Same: number }>(
        `SELECT COUNT(*) AS Same FROM dbo.Places a JOIN dbo.Places b ON b.Id = 4
          WHERE a.Node = @node AND CONVERT(varbinary(max), a.Shape) = CONVERT(varbinary(max), b.Shape)`,
      );
    expect(back.recordset[0]?.Same).toBe(1);
  });

  it('the catalog lists the system CLR types: system type 240, user types 128, 129, 130', async () => {
    const r = await session.pool.request().query<{
      name: string;
      system_type_id: number;
      user_type_id: number;
      type: string;
      is_assembly_type: boolean;
    }>(
      `SELECT c.name, c.system_type_id, c.user_type_id, ty.name AS type, ty.is_assembly_type
        FROM sys.columns c JOIN sys.types ty ON ty.user_type_id = c.user_type_id
        WHERE c.object_id = OBJECT_ID('dbo.Places') AND c.system_type_id = 240 ORDER BY c.column_id`,
    );
    expect(r.recordset).toEqual([
      { name: 'Node', system_type_id: 240, user_type_id: 128, type: 'hierarchyid', is_assembly_type: true },
      { name: 'Spot', system_type_id: 240, user_type_id: 130, type: 'geography', is_assembly_type: true },
      { name: 'Shape', system_type_id: 240, user_type_id: 129, type: 'geometry', is_assembly_type: true },
    ]);
  });
});

describe('refused as SQL Server refuses', () => {
  it('a path that is not a hierarchyid, WKT that does not parse, a latitude past 90: 6522, nothing written', async () => {
    const bad = await refused(run("INSERT INTO dbo.Places (Id, Node) VALUES (9, '1/2')"));
    expect(bad?.number).toBe(6522);
    expect(bad?.message).toContain("24001: SqlHierarchyId.Parse failed because the input string '1/2'");
    expect((await refused(run("INSERT INTO dbo.Places (Id, Shape) VALUES (9, 'POINT (1)')")))?.number).toBe(
      6522,
    );
    const lat = await refused(
      run('INSERT INTO dbo.Places (Id, Spot) VALUES (9, geography::Point(91, 0, 4326))'),
    );
    expect(lat?.message).toContain('24201: Latitude values must be between -90 and 90 degrees.');
    const n = await session.pool
      .request()
      .query<{ n: number }>('SELECT COUNT(*) AS n FROM dbo.Places WHERE Id = 9');
    expect(n.recordset[0]?.n).toBe(0);
  });

  it('a geography cannot become an int (529)', async () => {
    const e = await refused(run('SELECT CAST(Spot AS int) FROM dbo.Places'));
    expect(e?.number).toBe(529);
  });
});
