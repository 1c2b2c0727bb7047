import { Route, Switch } from 'wouter';
import { CollectionsList } from './CollectionsList';

/** Knowledge: collections, their contents and chunks (paths relative to /knowledge). */
export default function KnowledgeScreen() {
  return (
    <Switch>
      <Route path="/" component={CollectionsList} />
    </Switch>
  );
}
