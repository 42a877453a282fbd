// The handler types come from the contract: the compiler (npm run typecheck) refuses a handler that reads what its
// operation does not declare or answers what its operation does not return. The @ts-expect-error lines fail the
// typecheck as soon as such a mistake stops being an error.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import type { Handlers } from './typed.ts';
import { ok } from './envelope.ts';

describe('handlers typed from the contract', () => {
  it('see the validated request and answer the success envelope of their operation', () => {
    const handlers: Handlers = {
      async getInstance(req) {
        expectTypeOf(req.params).toEqualTypeOf<{ id: string }>();
        // @ts-expect-error getInstance declares no query string
        void req.query.id;
        // Headers arrive in lower case, and none is validated: each may be missing.
        expectTypeOf(req.headers.traceid).toEqualTypeOf<string | undefined>();
        throw new Error(`not called: ${req.params.id}`);
      },
      async createInstances(req) {
        expectTypeOf(req.body[0]!.instanceName).toEqualTypeOf<string>();
        throw new Error('not called');
      },
      // @ts-expect-error getRequestIp answers { ip: string }
      getRequestIp: async () => ok({ ip: 5 }),
      // @ts-expect-error getToolName answers its path in msg and null in data
      async getToolName() {
        return ok('/hcs/services/API/agent/install');
      },
    };
    // A handler that needs only what every request has may take a plain FastifyRequest.
    const plain: Handlers = { getRequestIp: async (req: FastifyRequest) => ok({ ip: req.ip }) };
    expect(Object.keys({ ...handlers, ...plain }).sort()).toEqual(['createInstances', 'getInstance', 'getRequestIp', 'getToolName']);
  });
});
