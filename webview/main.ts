// The panel's entry point: start the app, pass it the host's messages, tell the host we are ready.
import type { ToWebview } from '../src/protocol/panel';
import { App } from './app';
import './elements';
import { post } from './viewState';
import { tooltip } from './views/tooltip';

const root = document.getElementById('app');
if (root) {
  tooltip.attach();
  const app = new App(root);
  window.addEventListener('message', (e: MessageEvent<ToWebview>) => {
    try {
      app.handle(e.data);
    } catch (err) {
      // Never a stack trace in front of the user: a line, and the rest in the webview console.
      console.error('FFN Lens panel:', err);
    }
  });
  post({ type: 'ready' });
}
