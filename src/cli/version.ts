/** agentmd's version, as package.json gives it (a test keeps the two equal). */
export const VERSION = "0.1.0";
