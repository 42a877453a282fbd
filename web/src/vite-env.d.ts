/// <reference types="vite/client" />

/** True in `vite --mode mock`: msw answers every /hcs call in the browser. */
declare const __HCS_MOCK__: boolean;
