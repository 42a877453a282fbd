// Name search over 1,000,000 files (issue #16 item 5: < 50 ms p50), beside the bare trigram lookup measured in the
// same run on the same database. The files are written straight into the server's database (through its schema, so
// SQLite's FTS triggers and PostgreSQL's GIN index take every row as an insert would), spread over 1,000 folders of
// the admin's personal space, with names of two Chinese words, a number and an extension:
// e.g. "年度预算_123456.xlsx". A keyword of two words matches about 1 in 1,517 names (~660 rows), a number 1 row.
// Each case is timed as sequential requests on one connection (the latency a user waits), median and p99 of 200.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { ServerProc } from './lib.ts';
import { hcs, tokenOf } from './api.ts';
import type { CliEnv } from './cli.ts';
import type { Row } from '../run.ts';
import { trigramQuery, trigrams } from '../../mock-server/src/db/search-repo.ts';

const FILES = Number(process.env.HCS_BENCH_SEARCH_FILES ?? 1_000_000);
const FOLDERS = 1000;
const RUNS = 200;
const A = ['年度', '季度', '项目', '会议', '合同', '财务', '人事', '市场', '技术', '产品', '设计', '测试', '运营', '销售', '采购', '法务', '行政', '研发',
  '客户', '供应', '质量', '安全', '培训', '战略', '预算', '审计', '物流', '仓储', '品牌', '渠道', '招聘', '薪酬', '绩效', '档案', '资产', '投资', '风险'];
const B = ['报告', '计划', '纪要', '方案', '总结', '清单', '分析', '说明', '规范', '流程', '制度', '合同', '通知', '申请', '记录', '明细', '汇总', '草稿',
  '终稿', '提案', '评审', '需求', '手册', '指南', '模板', '日志', '统计', '预测', '对比', '台账', '排期', '名单', '协议', '附件', '备忘', '简报', '周报',
  '月报', '年报', '快报', '专报'];
const EXT = ['docx', 'xlsx', 'pptx', 'pdf', 'txt', 'png', 'mp4'];
const FILTER: Record<string, number> = { docx: 2, pptx: 3, xlsx: 4, pdf: 5, png: 6, mp4: 7, txt: 9 };
const TYPE: Record<string, string> = { docx: 'word', pptx: 'ppt', xlsx: 'excel', pdf: 'pdf', png: 'picture', mp4: 'video', txt: 'txt' };

export const nameOf = (i: number) => `${A[i % A.length]}${B[i % B.length]}_${i}.${EXT[i % EXT.length]}`;

type Sql = { run(text: string, params: unknown[]): Promise<void>; query<T>(text: string, params: unknown[]): Promise<T[]>; close(): Promise<void> };

/**
 * The server's database through its plain driver (node:sqlite, pg), not openSqlDatabase: that migrates, and a
 * bench process must not apply or judge migrations of a server that may have been started from another tree.
 */
export async function openDb(db: { dataDir: string; databaseUrl: string | undefined }): Promise<{ sql: Sql; pg: boolean }> {
  if (db.databaseUrl) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    const numbered = (text: string) => {
      let n = 0;
      return text.replace(/\?/g, () => `$${++n}`);
    };
    return {
      pg: true,
      sql: {
        async run(text, params) {
          await client.query(numbered(text), params);
        },
        async query<T>(text: string, params: unknown[]) {
          return (await client.query(numbered(text), params)).rows as T[];
        },
        close: () => client.end(),
      },
    };
  }
  const { DatabaseSync } = await import('node:sqlite');
  const file = new DatabaseSync(join(db.dataDir, 'hcs.sqlite'));
  file.exec('pragma busy_timeout = 30000');
  type P = Parameters<ReturnType<typeof file.prepare>['run']>;
  return {
    pg: false,
    sql: {
      async run(text, params) {
        file.prepare(text).run(...(params as P));
      },
      async query<T>(text: string, params: unknown[]) {
        return file.prepare(text).all(...(params as P)) as T[];
      },
      close: async () => file.close(),
    },
  };
}

/** Writes FOLDERS folders and FILES files under the personal root, in multi-row inserts of 500 in transactions. */
async function populate(s: Sql, pg: boolean, rootId: string, userId: string): Promise<void> {
  const now = Date.now();
  const cols = 'id, lib_code, instance_type, space_kind, space_id, parent_id, name, name_key, is_folder, size, ext, file_type, filter_cat, version, remark, created_by, created_at, updated_at, child_folders, child_files';
  const row = '(?, \'NetDisk\', \'1\', \'user\', ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, \'\', ?, ?, ?, 0, ?)';
  const prefix = randomBytes(3).toString('hex');
  const folders = Array.from({ length: FOLDERS }, (_, f) => ({ id: `bsf${prefix}${f}`, name: `folder-${String(f).padStart(4, '0')}` }));
  await s.run(`insert into instances (${cols}) values ${folders.map(() => row).join(', ')}`,
    folders.flatMap((f) => [f.id, userId, rootId, f.name, f.name, 1, 0, '', 'Folder', 1, userId, now, now, Math.ceil(FILES / FOLDERS)]));
  await s.run('update instances set child_folders = child_folders + ? where id = ?', [FOLDERS, rootId]);
  const CHUNK = 500;
  for (let i = 0; i < FILES; i += CHUNK * 20) {
    await s.run('begin', []);
    for (let j = i; j < Math.min(FILES, i + CHUNK * 20); j += CHUNK) {
      const params: unknown[] = [];
      const n = Math.min(CHUNK, FILES - j);
      for (let k = j; k < j + n; k++) {
        const name = nameOf(k);
        const ext = EXT[k % EXT.length]!;
        params.push(`bs${prefix}${k}`, userId, folders[k % FOLDERS]!.id, name, name.toLowerCase(), 0, 1000 + (k % 100_000), ext, TYPE[ext], FILTER[ext], userId, now - k, now - k, 0);
      }
      await s.run(`insert into instances (${cols}) values ${Array.from({ length: n }, () => row).join(', ')}`, params);
    }
    await s.run('commit', []);
  }
  await s.run(pg ? 'analyze instances' : 'analyze', []);
}

function stats(ms: number[]): { p50: number; p99: number } {
  const xs = [...ms].sort((a, b) => a - b);
  return { p50: xs[Math.floor(xs.length / 2)]!, p99: xs[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]! };
}

async function timed(fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 10; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return stats(ms);
}

export async function benchSearch(server: ServerProc, cli: CliEnv, db: { dataDir: string; databaseUrl: string | undefined }, rows: Row[]): Promise<void> {
  const token = tokenOf(cli.configDir);
  const rootId = (await hcs<{ parentId: string }>(server.url, token, '/hcs/controller/Page?pageSize=1')).parentId;
  const { sql: s, pg } = await openDb(db);
  try {
    const [admin] = await s.query<{ id: string }>('select id from users where user_name = ?', ['admin']);
    const started = performance.now();
    await populate(s, pg, rootId, admin!.id);
    const loadSeconds = (performance.now() - started) / 1000;
    // Staff belong to a department, so a real search looks in two spaces or more (their own and their department
    // chain's): the admin joins the root department, and every case below searches both.
    await s.run('update users set dept_id = ? where id = ?', ['root', admin!.id]);

    const cases: [string, string, number | null][] = [
      [`two words (about ${Math.round(FILES / (A.length * B.length))} matches)`, `${A[3]}${B[5]}`, 50],
      ['a number (1 match)', `_${Math.floor(FILES * 0.7317)}.`, 50],
      [`a common word (about ${Math.round(FILES / B.length)} matches; page 1 of 20)`, B[7]!, null],
      ['one character (LIKE walk of the space index; page 1 of 20)', '报', null],
    ];
    for (const [label, keyword, target] of cases) {
      const url = `${server.url}/hcs/controller/es/searchPage?pageSize=20&keyword=${encodeURIComponent(keyword)}`;
      const headers = { 'X-Requested-With': 'XMLHttpRequest', token };
      const first = (await (await fetch(url, { headers })).json()) as { ret: number; data: { list: unknown[]; total: number } };
      if (first.ret !== 0 || first.data.list.length === 0) throw new Error(`search for ${keyword} failed: ${JSON.stringify(first).slice(0, 300)}`);
      const full = await timed(async () => {
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
      });
      // The bare lookup: the trigram index alone (SQLite FTS5 MATCH, PostgreSQL's trigram-array GIN), first 20 ids.
      const key = keyword.toLowerCase();
      const grams = [...key].length >= 3;
      const bare = await timed(() => {
        if (!grams) return s.query(pg ? 'select id from instances where strpos(name_key, ?) > 0 limit 20' : 'select id from instances where instr(name_key, ?) > 0 limit 20', [key]);
        if (pg) return s.query('select id from instances where hcs_name_trigrams(name_key) @> ?::text[] limit 20', [trigrams(key)]);
        return s.query('select rowid from instances_fts where instances_fts match ? limit 20', [trigramQuery(key)]);
      });
      const row: Row = {
        name: `search ${label} in ${FILES.toLocaleString('en')} files, page of 20 (sequential, ${RUNS} runs; load ${loadSeconds.toFixed(0)} s)`,
        value: `p50 ${full.p50.toFixed(1)} ms, p99 ${full.p99.toFixed(1)} ms (${first.data.total} found)`,
        baseline: `bare index lookup p50 ${bare.p50.toFixed(1)} ms, p99 ${bare.p99.toFixed(1)} ms`,
        ratio: bare.p50 / full.p50,
        target: target === null ? '-' : `p50 < ${target} ms`,
        pass: target === null ? null : full.p50 < target,
      };
      rows.push(row);
      // Printed as it is measured: the population alone takes minutes, and a later failure must not lose it.
      console.log(`${db.databaseUrl ? 'postgres' : 'sqlite'}: ${row.name}: ${row.value}; ${row.baseline}`);
    }
  } finally {
    await s.close();
  }
}
