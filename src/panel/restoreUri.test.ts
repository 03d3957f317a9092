import * as assert from 'node:assert/strict';
import { restoreCandidates } from './restoreUri';

describe('a restored panel\'s file, saved by the other extension host', () => {
  const node = { scheme: 'file', authority: '', path: '/w/gpt2.ffn.json' };
  const webFolder = { scheme: 'vscode-remote', authority: '127.0.0.1:8080', path: '/w' };

  it('Node host → web worker host: the file: URI\'s path in the remote workspace folder', () => {
    assert.deepEqual(restoreCandidates(node, [webFolder]), [node, { scheme: 'vscode-remote', authority: '127.0.0.1:8080', path: '/w/gpt2.ffn.json' }]);
  });

  it('web worker host → Node host, and a server on another port: the current folder\'s scheme and authority', () => {
    const web = { scheme: 'vscode-remote', authority: '127.0.0.1:8080', path: '/w/a/m.ffn.json' };
    assert.deepEqual(restoreCandidates(web, [{ scheme: 'file', authority: '', path: '/w' }])[1], { scheme: 'file', authority: '', path: '/w/a/m.ffn.json' });
    assert.deepEqual(restoreCandidates(web, [{ scheme: 'vscode-remote', authority: '127.0.0.1:9090', path: '/w/' }])[1], { scheme: 'vscode-remote', authority: '127.0.0.1:9090', path: '/w/a/m.ffn.json' });
  });

  it('the folders that hold the path first; nothing twice', () => {
    const folders = [{ scheme: 'vscode-remote', authority: 'h', path: '/other' }, webFolder, { scheme: 'file', authority: '', path: '/w' }];
    assert.deepEqual(restoreCandidates(node, folders).map((c) => `${c.scheme}://${c.authority}${c.path}`), [
      'file:///w/gpt2.ffn.json', 'vscode-remote://127.0.0.1:8080/w/gpt2.ffn.json', 'vscode-remote://h/w/gpt2.ffn.json',
    ]);
  });
});
