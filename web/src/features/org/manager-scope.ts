// What /departmentManage shows a department manager: only the subtrees they manage (the server refuses the rest
// anyway, this keeps the screen from offering it). Administrators see the whole organisation.
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import type { UserInfo } from '../../shared/session.ts';

/** The tree's roots for this user: the whole tree for administrators, else each top-most managed department. */
export function scopeTree(nodes: readonly DeptTreeNode[], user: Pick<UserInfo, 'isAdmin' | 'managedDeptIds'> | null): DeptTreeNode[] {
  if (user?.isAdmin) return [...nodes];
  const managed = new Set(user?.managedDeptIds ?? []);
  const roots: DeptTreeNode[] = [];
  // A managed department below another managed one is already inside that root.
  const walk = (ns: readonly DeptTreeNode[]) => {
    for (const n of ns) {
      if (managed.has(n.id)) roots.push(n);
      else walk(n.children);
    }
  };
  walk(nodes);
  return roots;
}
