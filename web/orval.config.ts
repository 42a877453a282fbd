import { defineConfig } from 'orval';

// React-query hooks and msw/faker handlers from the bundled contract, split by tag.
export default defineConfig({
  hcs: {
    input: { target: '../openapi/dist/hcs.json' },
    output: {
      mode: 'tags-split',
      target: 'src/api/gen/hcs.ts',
      schemas: 'src/api/gen/model',
      client: 'react-query',
      httpClient: 'fetch',
      mock: true,
      clean: true,
      prettier: false,
      override: {
        mutator: { path: 'src/api/http.ts', name: 'hcsFetch' },
        query: { useQuery: true, useSuspenseQuery: false, signal: true },
        fetch: { includeHttpResponseReturnType: false },
      },
    },
  },
});
