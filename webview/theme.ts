// VS Code swaps the body's theme class (vscode-light, vscode-dark, vscode-high-contrast): what
// reads its colors when drawn (the charts, a diverging map's centre) is drawn again.

/** Calls `changed` when the theme changes (not when other body classes, has-errors…, come and go). */
export function watchTheme(changed: () => void): void {
  const theme = (): string => /vscode-(high-contrast-light|high-contrast|light|dark)/.exec(document.body.className)?.[1] ?? '';
  let kind = theme();
  new MutationObserver(() => {
    if (theme() === kind) return;
    kind = theme();
    changed();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}
