// The extension's settings (contributes.configuration in package.json), read in one place.
import * as vscode from 'vscode';
import type { ColormapSetting, PanelSettings, RangeSetting } from './protocol/panel';

export const SECTION = 'ffnLens';

export interface Settings {
  readonly panel: PanelSettings;
  readonly debounceMs: number;
  readonly followActiveEditor: boolean;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  return {
    panel: {
      colormap: c.get<ColormapSetting>('colormap', 'coolwarm'),
      range: c.get<RangeSetting>('colorRange', 'perHeatmap'),
      percentile: c.get<number>('clipPercentile', 99),
      maxRows: c.get<number>('maxHeatmapRows', 256),
      maxCols: c.get<number>('maxHeatmapColumns', 1024),
    },
    debounceMs: Math.max(0, c.get<number>('debounceMs', 150)),
    followActiveEditor: c.get<boolean>('followActiveEditor', true),
  };
}

/**
 * The panel's own controls write the settings, so controls and settings never disagree: into the
 * most specific scope that already sets the value (a workspace setting would override a user one),
 * else the user's.
 */
export async function writePanelSetting(key: 'colormap' | 'colorRange', value: string): Promise<void> {
  const c = vscode.workspace.getConfiguration(SECTION);
  const i = c.inspect(key);
  const target = i?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder
    : i?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace
      : vscode.ConfigurationTarget.Global;
  await c.update(key, value, target);
}
