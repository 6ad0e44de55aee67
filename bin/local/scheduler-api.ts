import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { OneTimeScheduler } from '../../shared/webhooks/scheduler.ts';

/**
 * The local stand-in for EventBridge Scheduler's API: just `CreateSchedule` (`POST /schedules/{Name}`, REST-JSON),
 * which is all the delivery worker calls. So the worker runs the same `@aws-sdk/client-scheduler` code locally as in
 * AWS, with only the endpoint changed; the schedule itself is kept and fired by the local scheduler.
 */
export async function startSchedulerApi(options: { scheduler: OneTimeScheduler; queueArn: string; port?: number }) {
  const server = createServer(async (request, response) => {
    const match = /^\/schedules\/([^/?]+)/.exec(request.url ?? '');
    if (request.method !== 'POST' || !match) return fail(response, 404, 'ResourceNotFoundException', 'only CreateSchedule is emulated');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        ScheduleExpression?: string;
        ScheduleExpressionTimezone?: string;
        ActionAfterCompletion?: string;
        Target?: { Arn?: string; Input?: string };
      };
      const at = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(input.ScheduleExpression ?? '')?.[1];
      if (!at || (input.ScheduleExpressionTimezone ?? 'UTC') !== 'UTC')
        return fail(response, 400, 'ValidationException', 'expected at(yyyy-mm-ddThh:mm:ss) in UTC');
      if (input.Target?.Arn !== options.queueArn || input.Target.Input === undefined)
        return fail(response, 400, 'ValidationException', 'the target must be the delivery queue, with an input');
      if (input.ActionAfterCompletion !== 'DELETE')
        return fail(response, 400, 'ValidationException', 'one-time schedules here delete themselves');
      const name = decodeURIComponent(match[1]!);
      await options.scheduler.schedule({ name, at: Date.parse(`${at}Z`), messageBody: input.Target.Input });
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ScheduleArn: `arn:aws:scheduler:local:000000000000:schedule/local/${name}` }));
    } catch (error) {
      fail(response, 500, 'InternalServerException', (error as Error).message);
    }
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function fail(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type }).end(JSON.stringify({ message }));
}
