import type { Message } from '@lore/client';

/** One message of a conversation with its replies: several replies are branches (edits, regenerations). */
export interface TreeNode {
  readonly message: Message;
  readonly children: TreeNode[];
  /** On the path the next turn continues from (root to `current_message_id`). */
  readonly active: boolean;
}

/**
 * The export's flat list (every branch, oldest first) as a forest of replies. A message whose
 * parent is missing (deleted with its subtree is impossible, but a page may be partial) is
 * shown as a root rather than dropped.
 */
export function buildConversationTree(messages: readonly Message[], activePath: readonly string[]): TreeNode[] {
  const active = new Set(activePath);
  const nodes = new Map<string, TreeNode>();
  for (const message of messages) nodes.set(message.id, { message, children: [], active: active.has(message.id) });
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.message.parent_message_id === null ? undefined : nodes.get(node.message.parent_message_id);
    (parent?.children ?? roots).push(node);
  }
  return roots;
}

/** How many messages sit beside the active path: what the tree shows that the transcript does not. */
export function countBranches(roots: readonly TreeNode[]): number {
  let branches = 0;
  const visit = (node: TreeNode): void => {
    if (node.children.length > 1) branches += node.children.length - 1;
    node.children.forEach(visit);
  };
  roots.forEach(visit);
  return branches + Math.max(0, roots.length - 1);
}
