/** `${CLAUDE_PLUGIN_ROOT}`: a plugin's folder, in its definitions, hooks and servers. */
export const PLUGIN_ROOT_VAR = "${CLAUDE_PLUGIN_ROOT}";

/** `${CLAUDE_PLUGIN_ROOT}` → the plugin's folder, in any text of it. Pure. */
export const withPluginRoot = (text: string, root: string): string => text.replaceAll(PLUGIN_ROOT_VAR, root);
