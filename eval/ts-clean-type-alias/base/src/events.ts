export class Emitter {
  private handlers: Array<(name: string, payload: unknown) => void> = [];

  on(handler: (name: string, payload: unknown) => void): void {
    this.handlers.push(handler);
  }

  emit(name: string, payload: unknown): void {
    for (const h of this.handlers) h(name, payload);
  }
}
