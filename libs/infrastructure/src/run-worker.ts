import { Logger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** Starts a worker app (no HTTP) as its own process, stopping cleanly on SIGTERM/SIGINT. */
export async function runWorker(module: Type<unknown>, name: string): Promise<void> {
  const app = await NestFactory.createApplicationContext(module, { bufferLogs: false });
  app.enableShutdownHooks();
  new Logger(name).log(`${name} started`);
}
