import { defineConfig } from "vitest/config";

// `npm run demo:record`: records demo/session.jsonl again (see scripts/record-demo.test.ts).
export default defineConfig({
  test: { include: ["scripts/record-demo.test.ts"], testTimeout: 30_000 },
});
