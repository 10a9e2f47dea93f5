// Preloaded into each contender of bench/cli: its peak RSS, on stderr, as it exits.
process.on("exit", () => process.stderr.write(`\nPEAK_RSS_KB=${process.resourceUsage().maxRSS}\n`));
