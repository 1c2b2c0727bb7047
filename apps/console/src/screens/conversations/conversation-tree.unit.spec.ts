import { describe, expect, it } from '@jest/globals';
import type { Message } from '@lore/client';
import { buildConversationTree, countBranches } from './conversation-tree';

const message = (id: string, parent: string | null): Message => ({ id, parent_message_id: parent, content: id, role: 'user' }) as Message;

describe('a conversation as a tree', () => {
  it('nests replies under their parent, marks the active path and counts the other branches', () => {
    // a → b → c (active) and a → b2 (an edit of b), b → c2 (a regenerated answer)
    const roots = buildConversationTree([message('a', null), message('b', 'a'), message('b2', 'a'), message('c', 'b'), message('c2', 'b')], ['a', 'b', 'c']);
    expect(roots.map((n) => n.message.id)).toEqual(['a']);
    const [a] = roots;
    expect(a?.children.map((n) => [n.message.id, n.active])).toEqual([['b', true], ['b2', false]]);
    expect(a?.children[0]?.children.map((n) => [n.message.id, n.active])).toEqual([['c', true], ['c2', false]]);
    expect(countBranches(roots)).toBe(2);
  });

  it('keeps a message whose parent is not in the list as a root instead of dropping it', () => {
    expect(buildConversationTree([message('x', 'gone')], []).map((n) => n.message.id)).toEqual(['x']);
  });
});
