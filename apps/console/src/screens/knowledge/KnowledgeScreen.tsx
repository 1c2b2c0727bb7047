import { Route, Switch } from 'wouter';
import { CollectionPage } from './CollectionPage';
import { CollectionsList } from './CollectionsList';
import { ContentPage } from './ContentPage';

/** Knowledge: collections, their contents and chunks (paths relative to /knowledge). */
export default function KnowledgeScreen() {
  return (
    <Switch>
      <Route path="/" component={CollectionsList} />
      <Route path="/:collectionId" component={CollectionPage} />
      <Route path="/:collectionId/contents/:contentId" component={ContentPage} />
    </Switch>
  );
}
