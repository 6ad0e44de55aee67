import { useState } from 'preact/hooks';
import type { paths } from '@secrets-service/sdk/client';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox, useAction } from '../ui/components.tsx';
import type { StreamItem } from './stream-parts.tsx';

type TestAnswer = paths['/api/v1/audit-streams/{id}/test']['post']['responses'][200]['content']['application/json']['data'];

/**
 * `Send test`: one audit entry (the `audit_stream.test` entry the test writes) sent to the receiver at once
 * (`POST /api/v1/audit-streams/{id}/test`), and what it answered: delivered, or its status and the error.
 */
export function SendTest({ stream, onSent }: { stream: StreamItem; onSent: () => void }) {
  const { client } = useSession();
  const action = useAction();
  const [answer, setAnswer] = useState<TestAnswer | null>(null);
  const send = async () => {
    setAnswer(null);
    const sent = await action.run(async () =>
      unwrap(await client.api.POST('/api/v1/audit-streams/{id}/test', { params: { path: { id: stream.id } } })),
    );
    // The delivery's health fields may have moved (last delivered, last error): the page reads the stream again.
    if (sent) setAnswer(sent), onSent();
  };
  return (
    <>
      <button type="button" onClick={() => void send()} disabled={action.busy}>
        Send test
      </button>
      {answer && <TestResult answer={answer} />}
      <ErrorBox error={action.error} />
    </>
  );
}

function TestResult({ answer }: { answer: TestAnswer }) {
  if (answer.delivered)
    return (
      <p class="ok-text" role="status">
        Delivered{answer.statusCode === null ? '' : ` (${answer.statusCode})`}.
      </p>
    );
  return (
    <p class="danger-text" role="status">
      Not delivered{answer.statusCode === null ? '' : ` (${answer.statusCode})`}: {answer.error ?? 'no reason given'}
    </p>
  );
}
