import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The tables and columns that src/db/schema.ts declares (its `DB` interface, schema-vulns.ts's
// tables included), read with the TypeScript compiler's type checker rather than kept by hand,
// so that test/db/schema-matches-migrations.test.ts checks every table the code can query as
// the schema grows.

/** What a column can hold as the driver hands it back, broadly (as both databases store it). */
export type BroadType = 'text' | 'number' | 'blob';

export interface DeclaredColumn {
  /** Broadly, what its select type holds: strings (and Encoded<…> text) are text, numbers number, Buffers blob. */
  type: BroadType;
  nullable: boolean;
  /** Generated<…> (or a ColumnType whose insert type admits undefined): the database gives it a value. */
  generated: boolean;
}

/** Table → column → how the TypeScript declares it. */
export type DeclaredSchema = Map<string, Map<string, DeclaredColumn>>;

export const SCHEMA_FILE = fileURLToPath(new URL('../../src/db/schema.ts', import.meta.url));

/**
 * Node's Buffer by name alone: the reader needs to know a column is one, not Node's definitions,
 * whose ~100 files would double the time a program takes to make (about a second of CPU).
 */
const GLOBALS_FILE = fileURLToPath(new URL('./declared-schema-globals.d.ts', import.meta.url));
const GLOBALS = 'interface Buffer extends Uint8Array {}\n';

/** Declarations parsed once per process (Kysely's and TypeBox's are ~450 files): a second read reuses them. */
const parsed = new Map<string, ts.SourceFile>();

/**
 * The `DB` interface of `file` (src/db/schema.ts by default) as tables of columns. `text`, when
 * given, stands in for the file's content (a schema with a deliberate fault, say); imports are
 * resolved from the file's folder either way. Throws for a column whose type it cannot tell.
 */
export function readDeclaredSchema(file = SCHEMA_FILE, text?: string): DeclaredSchema {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
    lib: ['lib.es2022.d.ts'],
  };
  const host = ts.createCompilerHost(options);
  const virtual = new Map([[GLOBALS_FILE, GLOBALS]]);
  if (text !== undefined) virtual.set(file, text);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) => {
    const content = virtual.get(name);
    if (content !== undefined) return ts.createSourceFile(name, content, language);
    if (!parsed.has(name)) parsed.set(name, getSourceFile.call(host, name, language, ...rest)!);
    return parsed.get(name);
  };
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name) ?? readFile.call(host, name);
  const program = ts.createProgram({ rootNames: [file, GLOBALS_FILE], options, host });
  // The schema's own files (schema.ts, schema-vulns.ts): TypeBox's types, which
  // shared/sbom-format.ts uses, take long to check, and tsc checks them anyway.
  const ours = program.getSourceFiles().filter((f) => !f.isDeclarationFile && dirname(f.fileName) === dirname(file));
  const problems = ours.flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]);
  if (problems.length > 0) throw new Error(ts.formatDiagnostics(problems, host));
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const db = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).find((s) => s.name === 'DB');
  if (!db) throw new Error(`${file} exports no DB interface`);

  const typeOf = (symbol: ts.Symbol) => checker.getTypeOfSymbolAtLocation(symbol, source);
  const out: DeclaredSchema = new Map();
  for (const table of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(db))) {
    const columns = new Map<string, DeclaredColumn>();
    for (const column of checker.getPropertiesOfType(typeOf(table))) {
      columns.set(column.name, declaredColumn(checker, typeOf(column), `${table.name}.${column.name}`));
    }
    out.set(table.name, columns);
  }
  return out;
}

/** A column's property type: T, or Kysely's ColumnType<Select, Insert, Update> (Generated<T> is one). */
function declaredColumn(checker: ts.TypeChecker, type: ts.Type, where: string): DeclaredColumn {
  const select = type.getProperty('__select__');
  const insert = type.getProperty('__insert__');
  const selected = select ? checker.getTypeOfSymbol(select) : type;
  const generated = insert !== undefined && members(checker.getTypeOfSymbol(insert)).some((t) => t.flags & ts.TypeFlags.Undefined);
  let nullable = false;
  const kinds = new Set<BroadType>();
  for (const member of members(selected)) {
    if (member.flags & ts.TypeFlags.Null) nullable = true;
    else kinds.add(broadTypeOf(checker, member, where));
  }
  if (kinds.size !== 1) throw new Error(`${where}: its type holds ${kinds.size === 0 ? 'nothing but null' : [...kinds].join(' and ')}`);
  return { type: [...kinds][0]!, nullable, generated };
}

function members(type: ts.Type): readonly ts.Type[] {
  return type.isUnion() ? type.types : [type];
}

function broadTypeOf(checker: ts.TypeChecker, type: ts.Type, where: string): BroadType {
  if (type.flags & ts.TypeFlags.StringLike) return 'text';
  if (type.flags & ts.TypeFlags.NumberLike) return 'number';
  const name = type.getSymbol()?.name;
  // Encoded<Form>: text stored in an encoding of its own (schema.ts).
  if (name === 'Encoded') return 'text';
  if (name === 'Buffer') return 'blob';
  throw new Error(`${where}: cannot tell what ${checker.typeToString(type)} is stored as`);
}
