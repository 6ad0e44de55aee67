import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { OneTimeScheduler } from '../../shared/webhooks/index.ts';
import { nextFire, type RecurringScheduler } from './recurring-scheduler.ts';

/**
 * The local stand-in for EventBridge Scheduler's API: just `CreateSchedule` (`POST /schedules/{Name}`, REST-JSON),
 * which is all the delivery worker calls. So the worker runs the same `@aws-sdk/client-scheduler` code locally as in
 * AWS, with only the endpoint changed; the schedule itself is kept and fired by the local scheduler.
 */
export async function startSchedulerApi(options: {
  scheduler: OneTimeScheduler;
  queueArn: string;
  /** The recurring schedules (rotations): Create, Update and Delete of schedules that target this queue. */
  recurring?: { scheduler: RecurringScheduler; queueArn: string; queueUrl: string };
  port?: number;
}) {
  const server = createServer(async (request, response) => {
    const match = /^\/schedules\/([^/?]+)/.exec(request.url ?? '');
    if (!match) return fail(response, 404, 'ResourceNotFoundException', 'no such operation here');
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const name = decodeURIComponent(match[1]!);
    if (options.recurring && (request.method !== 'POST' || isRecurring(chunks)))
      return recurringRequest(options.recurring, request.method ?? '', name, chunks, response);
    if (request.method !== 'POST') return fail(response, 404, 'ResourceNotFoundException', 'only CreateSchedule is emulated');
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

/** A CreateSchedule of a recurring schedule (rate or cron), as rotations make them. */
function isRecurring(chunks: Buffer[]): boolean {
  try {
    return /^(rate|cron)\(/.test(
      (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ScheduleExpression?: string }).ScheduleExpression ?? '',
    );
  } catch {
    return false;
  }
}

/** CreateSchedule (POST), UpdateSchedule (PUT) and DeleteSchedule (DELETE) of a recurring schedule. */
async function recurringRequest(
  recurring: { scheduler: RecurringScheduler; queueArn: string; queueUrl: string },
  method: string,
  name: string,
  chunks: Buffer[],
  response: ServerResponse,
) {
  const exists = recurring.scheduler.has(name);
  if (method === 'DELETE') {
    if (!(await recurring.scheduler.remove(name)))
      return fail(response, 404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
    return response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }
  if (method !== 'POST' && method !== 'PUT') return fail(response, 404, 'ResourceNotFoundException', 'no such operation here');
  if (method === 'POST' && exists) return fail(response, 409, 'ConflictException', `Schedule ${name} already exists.`);
  if (method === 'PUT' && !exists) return fail(response, 404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
  const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    ScheduleExpression?: string;
    ScheduleExpressionTimezone?: string;
    Target?: { Arn?: string; Input?: string };
  };
  const expression = input.ScheduleExpression ?? '';
  try {
    nextFire({ expression, since: Date.now() }, Date.now());
  } catch (error) {
    return fail(response, 400, 'ValidationException', (error as Error).message);
  }
  if ((input.ScheduleExpressionTimezone ?? 'UTC') !== 'UTC') return fail(response, 400, 'ValidationException', 'only UTC is emulated');
  if (input.Target?.Arn !== recurring.queueArn || input.Target.Input === undefined)
    return fail(response, 400, 'ValidationException', 'the target must be the rotation queue, with an input');
  await recurring.scheduler.put(name, { expression, messageBody: input.Target.Input, queueUrl: recurring.queueUrl });
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ ScheduleArn: `arn:aws:scheduler:local:000000000000:schedule/rotations/${name}` }));
}
