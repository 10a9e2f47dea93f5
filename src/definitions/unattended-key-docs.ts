import type { KeyDoc } from "./key-doc.js";

/** What the keys of unattended runs do (structured output, budgets, fallback models, effort, thinking): part of KEY_DOCS. */
export const UNATTENDED_KEY_DOCS: Readonly<Record<string, KeyDoc>> = {
  outputSchema: {
    title: "Structured output",
    type: "JSON Schema (a YAML map)",
    description:
      "A JSON Schema (`type: object`) the answer must match, as Claude Code's `--json-schema`: the run is offered a `StructuredOutput` tool whose input schema it is, and a call that matches ends the run with that object as its answer (`structured_output` in `-p --output-format json`). A call that does not match is answered with what failed; after 5 failed attempts (a text answer without the call counts as one, and is reminded) the run ends with `error_max_structured_output_retries`. An invalid schema is an error at its place in the file.",
    on: {
      agent: {
        description:
          "A JSON Schema (`type: object`) the subagent's answer must match: it is offered a `StructuredOutput` tool taking it, and its caller's Task call returns the validated object as JSON text. After 5 failed attempts the Task call fails, saying so. An invalid schema is an error at its place in the file.",
      },
      skill: {
        description:
          "With `context: fork` (or when a user types `/name`): a JSON Schema (`type: object`) the run's answer must match, through the `StructuredOutput` tool; the Skill call returns the validated object as JSON text. A skill loaded inline does not start a run of its own, so it is not used there.",
      },
      command: {
        description:
          "A JSON Schema (`type: object`) the answer of the run `/name` starts must match, through the `StructuredOutput` tool (`structured_output` in `-p --output-format json`).",
      },
    },
  },
  fallbackModel: {
    title: "Fallback models",
    type: "model or list of models",
    on: {
      main: {
        description:
          "Models (aliases or ids), in order, that a request goes to when the model is overloaded (529, `overloaded_error`) after its retries, as Claude Code's `--fallback-model` (which wins over it); the run goes on with the model that answered. Each switch is a warning in the run's events and transcript, and recordings hold every exchange, so a replay is exact. Subagents without their own inherit these.",
        default: "none",
      },
      agent: {
        description:
          "This subagent's fallback models (aliases or ids), in order, when its model is overloaded after its retries.",
        default: "agent.md's",
      },
    },
  },
  effort: {
    title: "Effort",
    type: "low, medium, high, xhigh or max",
    description:
      "How much effort the model puts into each response, as Claude Code's `effort` and `--effort` (which wins over agent.md's): requests carry `output_config: {effort}` with the `anthropic-beta: effort-2025-11-24` header, on a model that takes that level (docs/formats.md, Effort and thinking). To a model that does not, or one agentmd does not know, it is not sent, and the run says so in a warning naming the model. A value that is not a level is an error.",
    on: {
      main: {
        description:
          "How much effort the model puts into each response (`output_config: {effort}`, sent with the `anthropic-beta: effort-2025-11-24` header), as Claude Code's `--effort`, which wins over it. Every run without an `effort` of its own uses it. Sent only to a model that takes that level (docs/formats.md, Effort and thinking); otherwise the run warns, naming the model, and leaves it out. A value that is not a level is an error.",
        default: "the model's own",
      },
      agent: {
        description:
          "This subagent's effort: its own requests carry it (its caller's and its siblings' keep theirs; what it starts uses agent.md's). Sent only to a model that takes it, else a warning naming the model.",
        default: "agent.md's",
      },
      skill: {
        description:
          "With `context: fork` (or when a user types `/name`): the effort of the run it starts (over the `agent:` it runs as). A skill loaded inline starts no run, so it is not used there.",
        default: "agent.md's",
      },
      command: {
        description: "The effort of the run `/name` starts (over the `agent:` it runs as).",
        default: "agent.md's",
      },
    },
  },
  thinking: {
    title: "Extended thinking",
    type: "tokens, adaptive, disabled, or the API's object",
    description:
      'Extended thinking: a budget of tokens (at least 1024), `adaptive` or `disabled`, or the API\'s own object for one (`{type: enabled, budget_tokens: 8000}`, `{type: adaptive}`, `{type: disabled}`). A budget is sent as `thinking: {type: "enabled", budget_tokens: N}`, `adaptive` as `{type: "adaptive"}`, `disabled` as `{type: "disabled"}`, each only to a model that takes it (docs/formats.md, Effort and thinking; else a warning naming the model). `max_tokens` must be above the budget: when the budget does not fit under `maxTokens`, requests carry the budget plus `maxTokens`, and `agentmd check` warns. Thinking tokens are output tokens: they are priced and count toward a budget. `--thinking` and `--max-thinking-tokens` win over agent.md\'s.',
    on: {
      agent: {
        description:
          "This subagent's thinking (a budget of tokens, `adaptive` or `disabled`): its own requests carry it; what it starts uses agent.md's. `agentmd check` warns when a budget does not fit under agent.md's `maxTokens`.",
        default: "agent.md's",
      },
      skill: {
        description:
          "With `context: fork` (or when a user types `/name`): the thinking of the run it starts (a budget of tokens, `adaptive` or `disabled`), over the `agent:` it runs as.",
        default: "agent.md's",
      },
      command: {
        description:
          "The thinking of the run `/name` starts (a budget of tokens, `adaptive` or `disabled`), over the `agent:` it runs as.",
        default: "agent.md's",
      },
    },
  },
  maxBudgetUsd: {
    title: "Budget",
    type: "US dollars",
    on: {
      main: {
        description:
          "US dollars a session may spend, the main agent's requests and every subagent's together, as Claude Code's `--max-budget-usd` (which wins over it). Checked before every request: once reached no further request is sent and the run ends with `error_max_budget_usd`. A model with no known price (docs/formats.md, Prices) is refused under a budget.",
        default: "no budget",
      },
      agent: {
        description:
          "US dollars one run of this subagent (and what it starts) may spend; it gets the smaller of this and what its caller has left. A subagent stopped by its own cap is reported to its caller as a failed Task call, and the caller may go on.",
        default: "what its caller has left",
      },
    },
  },
};
