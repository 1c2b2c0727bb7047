import type { TreeNode } from './conversation-tree';

/**
 * The messages as nested lists: a reply is indented under its parent, siblings are branches
 * (an edit, a regenerated answer). The active path is marked in text, not only by colour.
 */
export function MessageTree({ roots }: { roots: readonly TreeNode[] }) {
  if (roots.length === 0) return <p>No messages yet.</p>;
  return (
    <div className="message-tree" aria-label="Messages, every branch">
      <Branches nodes={roots} />
    </div>
  );
}

function Branches({ nodes }: { nodes: readonly TreeNode[] }) {
  return (
    <ul>
      {nodes.map((node, index) => (
        <li key={node.message.id} className={node.active ? 'on-active-path' : 'off-path'} data-testid="tree-message">
          <p>
            <strong>{node.message.role}</strong>
            {nodes.length > 1 && <span className="badge">branch {index + 1} of {nodes.length}</span>}
            {node.active && <span className="badge active">active path</span>}
            {node.message.edit_of !== null && <span className="badge">edited</span>}
          </p>
          <p className="message-content">{node.message.content}</p>
          {node.children.length > 0 && <Branches nodes={node.children} />}
        </li>
      ))}
    </ul>
  );
}
