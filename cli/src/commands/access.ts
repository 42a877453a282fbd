// drive access <remote path> [--user <name>]: the server's own decision on an item (explainAccess) in words: what the
// user may do, where it comes from, and every grant on the way up to the space root, nearest first.
import type { Command } from 'commander';
import type { components } from '@hcs/openapi/client';
import type { Io } from '../command-context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { formatRemote, RemoteFs } from '../remote-path.ts';
import { subjectAction, userIdOf } from './admin.ts';

type Explanation = components['schemas']['AccessExplanation'];

const SOURCE: Record<Explanation['source'], string> = {
  owner: 'owner of the personal space',
  grant: 'the nearest grant',
  default: "the space's default",
  share: 'an internal share of the item or a folder above it',
  none: 'nothing applies',
};

export function explanationText(e: Explanation, path: string): string {
  const allowed = e.denied ? 'nothing (explicitly denied)' : e.allowed.length ? e.allowed.join(', ') : 'nothing';
  const source = e.source === 'default' && e.defaultRole ? `${SOURCE.default} (${e.defaultRole})` : SOURCE[e.source];
  const lines = [`${e.userName} on ${path}: ${allowed}`, `  decided by: ${source}`];
  if (e.chain.length) {
    lines.push('  grants, nearest first (* decided):');
    for (const s of e.chain) {
      const subject = `${s.subjectKind === 'dept' ? 'department' : 'user'} ${s.subjectName}`;
      lines.push(`  ${s.decisive ? '*' : ' '} ${s.roleCode}${s.deny ? ' (deny)' : ''} to ${subject} on ${s.instanceName}`);
    }
  }
  return lines.join('\n');
}

export function registerAccess(program: Command, io: Io): void {
  program
    .command('access')
    .argument('<path>', 'remote file or folder: /personal/path or dept:<department>/path')
    .option('--user <name>', "whose access (default: yours); another user's needs administrator or manage on the item")
    .description('Explain access: what a user may do on an item, and the grants that decided it')
    .action(
      subjectAction(io, async (ctx, user, path: string) => {
        const api = ctx.api();
        const r = await new RemoteFs(api).resolve(path);
        const userId = user === undefined ? undefined : (await userIdOf(api, user)).userId;
        const e = (await api.call((c) => c.GET('/hcs/controller/SysRoleUser/explainAccess', { params: { query: { instanceId: r.id, ...(userId ? { userId } : {}) } } }))).data;
        if (!e) throw new CliError(EXIT.REFUSED, 'the server returned no explanation', 'BAD_RESPONSE');
        const shown = formatRemote(r.space, r.segments);
        ctx.print({ event: 'access', path: shown, ...e }, explanationText(e, shown));
      }),
    );
}
