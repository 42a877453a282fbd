// /groupFile: the groups feature's page with the files feature's list screen for a group's space. Only the app may
// hand one feature's component to another; importing both here (not lazily from pages.tsx) keeps the list screen
// in the chunk /personalFile already loads rather than splitting it into more, smaller chunks.
import GroupFilePage from '../features/groups/GroupFilePage.tsx';
import { FileBrowser } from '../features/files/FileBrowser.tsx';

export default function GroupFileScreen() {
  return <GroupFilePage Browser={FileBrowser} />;
}
