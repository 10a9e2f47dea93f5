export {
  type ChainReport,
  type ChainResult,
  describeChain,
  formatChainReport,
  type Hop,
  resolveChain,
  ruleTexts,
} from "./chain.js";
export { compileCommandPattern } from "./command-pattern.js";
export { decide } from "./decide.js";
export { type DefinitionListContext, definitionList, patternDiagnostics } from "./definition-list.js";
export { denialText } from "./denial-text.js";
export { compileNamePattern, compilePathPattern, pathSubject } from "./path-pattern.js";
export {
  allowsNothing,
  compileList,
  type EntryInput,
  intersect,
  intersectAll,
  judgesCommands,
  offered,
  UNRESTRICTED,
} from "./permission-list.js";
export { mayOfferPrefix } from "./prefix-reach.js";
export { type SearchDomains, searchDomains } from "./search-domains.js";
export { loadShellParser, NO_PARSER, parseShell, type ShellParser } from "./shell/parse-shell.js";
export type { ShellPart, ShellScript } from "./shell/shell-script.js";
export {
  domainRule,
  judgesCommand,
  judgesName,
  judgesPath,
  judgesSearchDomain,
  judgesUrl,
  searchDomainRule,
  subjectValue,
} from "./subject-specs.js";
export { canonicalToolName, covers, isMcpServerName, matcherText, toolMatcher } from "./tool-matcher.js";
export type { IndexedList } from "./tool-view.js";
export type * from "./types.js";
