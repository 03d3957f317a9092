// The panel's heading names the file shown as soon as the host says which (init, on following
// another editor), before any model summary names the model (webview/heading.ts).
import * as assert from 'node:assert/strict';
import { fileNameOfUri } from '../../../webview/heading';

describe('the panel heading before a model is read', () => {
  it('is the file name of the document URI, decoded', () => {
    assert.equal(fileNameOfUri('file:///home/me/models/broken.ffn.json'), 'broken.ffn.json');
    assert.equal(fileNameOfUri('file:///c%3A/Users/me/my%20model.ffn.json'), 'my model.ffn.json');
    assert.equal(fileNameOfUri('vscode-remote://ssh-remote%2Bbox/srv/x/gpt2-two-layers.ffn.json?query#frag'), 'gpt2-two-layers.ffn.json');
    assert.equal(fileNameOfUri('untitled:Untitled-1'), 'Untitled-1');
    assert.equal(fileNameOfUri('file:///tmp/bad%E0%A4%A.json'), 'bad%E0%A4%A.json', 'a malformed escape, as it is');
  });
});
