// The extension's settings (contributes.configuration in package.json), read in one place.
import * as vscode from 'vscode';
import type { ColormapSetting, PanelSettings, RangeSetting } from '../protocol/panel';

export const SECTION = 'ffnLens';

export interface Settings {
  readonly panel: PanelSettings;
  readonly debounceMs: number;
  readonly followActiveEditor: boolean;
  /** Threads the compute worker multiplies on: 0 every core, else at most this many. */
  readonly threads: number;
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
    threads: Math.max(0, Math.floor(c.get<number>('threads', 0)) || 0),
  };
}

/**
 * The panel's own controls write the settings, so controls and settings never disagree: into the
 * most specific scope that already sets the value (a workspace setting would override a user one),
 * else into the workspace (a choice made for one project does not change every other), and only
 * without a workspace into the user's settings.
 */
export async function writePanelSetting(key: 'colormap' | 'colorRange', value: string): Promise<void> {
  const c = vscode.workspace.getConfiguration(SECTION);
  await c.update(key, value, panelSettingTarget(c.inspect(key), !!vscode.workspace.workspaceFolders?.length || !!vscode.workspace.workspaceFile));
}

export function panelSettingTarget(i: { workspaceFolderValue?: unknown; workspaceValue?: unknown; globalValue?: unknown } | undefined, hasWorkspace: boolean): vscode.ConfigurationTarget {
  if (i?.workspaceFolderValue !== undefined) return vscode.ConfigurationTarget.WorkspaceFolder;
  if (i?.workspaceValue !== undefined) return vscode.ConfigurationTarget.Workspace;
  if (i?.globalValue !== undefined) return vscode.ConfigurationTarget.Global;
  return hasWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}
