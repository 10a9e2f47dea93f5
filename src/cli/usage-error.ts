/** A command line agentmd cannot follow: said on stderr with exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
