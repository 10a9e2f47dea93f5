// highlight.js ships one type file for its whole package; its language modules each export a LanguageFn.
declare module "highlight.js/lib/languages/*" {
  import type { LanguageFn } from "highlight.js";

  const language: LanguageFn;
  export default language;
}
