// A department manager reaches /departmentManage and sees only their subtree; a plain user does not reach it; an
// administrator reaches every administration route and sees the whole tree.
import { describe, expect, it } from 'vitest';
import type { DeptTreeNode } from '../../api/gen/model/deptTreeNode.ts';
import { findRoute, mayEnter } from '../../shared/routes.ts';
import { scopeTree } from './manager-scope.ts';

const node = (id: string, parentId: string | null, children: DeptTreeNode[] = []): DeptTreeNode => ({ id, name: id, parentId, sort: 0, children });
const TREE = [node('root', null, [node('sales', 'root', [node('east', 'sales', [node('east-1', 'east')])]), node('ops', 'root')])];

const admin = { isAdmin: true, managedDeptIds: [] };
const manager = { isAdmin: false, managedDeptIds: ['sales', 'east'] };
const plain = { isAdmin: false, managedDeptIds: [] };

describe('department management for managers', () => {
  it('admits administrators and managers to /departmentManage, not plain users', () => {
    const dm = findRoute('/departmentManage')!;
    expect([mayEnter(dm, admin), mayEnter(dm, manager), mayEnter(dm, plain), mayEnter(dm, null)]).toEqual([true, true, false, false]);
    // The other administration screens stay administrators' own.
    for (const path of ['/roleManage', '/recycleBinManage', '/fileManagement']) {
      const r = findRoute(path)!;
      expect([mayEnter(r, admin), mayEnter(r, manager), mayEnter(r, plain)], path).toEqual([true, false, false]);
    }
    expect(mayEnter(findRoute('/personalFile')!, plain)).toBe(true);
  });

  it('roots the tree at the managed department for a manager, the whole tree for an administrator', () => {
    expect(scopeTree(TREE, manager).map((n) => n.id)).toEqual(['sales']);
    expect(scopeTree(TREE, { isAdmin: false, managedDeptIds: ['east', 'ops'] }).map((n) => n.id)).toEqual(['east', 'ops']);
    expect(scopeTree(TREE, plain)).toEqual([]);
    expect(scopeTree(TREE, admin)).toEqual(TREE);
  });
});
