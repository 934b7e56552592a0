import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { track } from './suite-resources';

export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** Starts s3rver in a child process on 127.0.0.1 and gives its endpoint. */
export async function startS3rver(bucket: string): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 's3rver-process.js'), bucket], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = track('s3rver process', () => stopChild(child));
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', (l) => {
      rl.close();
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  const { port } = JSON.parse(line) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop,
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
