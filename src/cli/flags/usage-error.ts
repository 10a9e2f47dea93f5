import { AgentmdError } from "../../shared/errors.js";

/** A command line agentmd cannot follow: said on stderr with exit status 2. */
export class UsageError extends AgentmdError {}
