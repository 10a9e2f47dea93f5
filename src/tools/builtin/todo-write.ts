import { defineTool, fail, ok } from "../define-tool.js";
import type { Todo, Tool } from "../types.js";

const schema = {
  type: "object",
  properties: {
    todos: {
      type: "array",
      description: "The whole updated list (it replaces the previous one).",
      items: {
        type: "object",
        properties: {
          content: {
            type: "string",
            description: "What is to be done, in the imperative ('Run the tests').",
          },
          status: { type: "string", enum: ["pending", "in_progress", "completed"] },
          activeForm: {
            type: "string",
            description: "The same while it is being done ('Running the tests').",
          },
          id: { type: "string" },
          priority: { type: "string", enum: ["high", "medium", "low"] },
        },
        required: ["content", "status"],
      },
    },
  },
  required: ["todos"],
} as const;

export const TODOS_UPDATED =
  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

/**
 * TodoWrite: the run's todo list, replaced whole by each call and shown to the user as a `todos`
 * event. It touches nothing else, so it may run beside any other call.
 */
export function createTodoWriteTool(): Tool {
  return defineTool<typeof schema>({
    name: "TodoWrite",
    description:
      "Keeps a todo list for the task, shown to the user: send the whole updated list each time. Use it for work of several steps; mark one item in_progress while working on it and completed as soon as it is done.",
    inputSchema: schema,
    concurrency: "concurrent-safe",
    interrupt: "cooperative",
    async execute(input, ctx) {
      const empty = input.todos.findIndex((t) => t.content.trim() === "");
      if (empty !== -1) return fail(`Todo ${empty + 1} has no content; say what is to be done.`);
      const todos: Todo[] = input.todos.map((t) => ({ ...t }));
      ctx.report?.({ type: "todos", todos });
      return ok(TODOS_UPDATED);
    },
  });
}
