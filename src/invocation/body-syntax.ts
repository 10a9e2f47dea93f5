// What a command's or skill's body says beyond text: the `!` commands it runs and the files it
// attaches. Read by the run (expand-body.ts) and by `agentmd check`, which judges them unrun.

/** `!`cmd`` at a line start or after whitespace; a ```! fenced block. */
export const COMMAND_BLOCK = /(?<=^|\s)!`([^`\n]+)`|^```!\s*\n([\s\S]*?)\n```[ \t]*$/gm;
/**
 * `@path` after whitespace: a file to attach: relative (`../../x` and dotfiles such as `@.env`
 * too), absolute, or in the home folder (`~/x`).
 */
export const ATTACHMENT = /(?<=^|\s)@((?:~\/|\/|(?:\.{1,2}\/)+)?\.?[A-Za-z0-9_][^\s`'"<>()]*)/g;
