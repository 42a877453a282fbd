// The globals transfer-core's neutral core may use: the web platform APIs that Node (>= 22) and every supported
// browser both provide (the WinterTC "minimum common API"), declared only as far as the core and the
// @hcs/openapi client it builds on use them. tsconfig.core.json checks src/core against this file instead of
// the DOM and @types/node, so a DOM-only global (window, document, indexedDB ...) or a Node one (process, Buffer)
// in the core is a type error; such code belongs in src/browser or src/node behind a port.
// Add a declaration here only for an API both runtimes have, with the members both implement.

interface EventListenerOptions {
  capture?: boolean;
}
interface AddEventListenerOptions extends EventListenerOptions {
  once?: boolean;
  signal?: AbortSignal;
}
interface Event {}

interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: any;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: (ev: Event) => void, options?: boolean | AddEventListenerOptions): void;
  removeEventListener(type: 'abort', listener: (ev: Event) => void, options?: boolean | EventListenerOptions): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
};

interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: any): void;
}
declare var AbortController: {
  prototype: AbortController;
  new (): AbortController;
};

interface DOMException extends Error {
  readonly name: string;
  readonly message: string;
}
declare var DOMException: {
  prototype: DOMException;
  new (message?: string, name?: string): DOMException;
};

/** Opaque: a number in browsers, an object in Node; only ever handed back to clearTimeout. */
interface TimerHandle {}
declare function setTimeout(handler: () => void, timeout?: number): TimerHandle;
declare function clearTimeout(id: TimerHandle | undefined): void;
declare function queueMicrotask(callback: () => void): void;

interface Console {
  error(...data: any[]): void;
}
declare var console: Console;

declare function atob(data: string): string;
declare function btoa(data: string): string;

interface TextEncoder {
  encode(input?: string): Uint8Array<ArrayBuffer>;
}
declare var TextEncoder: {
  prototype: TextEncoder;
  new (): TextEncoder;
};
interface TextDecoder {
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoder;
};

type BufferSource = ArrayBufferView<ArrayBuffer> | ArrayBuffer;
interface CryptoKey {
  readonly type: string;
}
interface SubtleCrypto {
  importKey(format: 'spki' | 'raw', keyData: BufferSource, algorithm: { name: string; hash?: string }, extractable: boolean, keyUsages: string[]): Promise<CryptoKey>;
  encrypt(algorithm: { name: string }, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>;
}
interface Crypto {
  readonly subtle: SubtleCrypto;
  getRandomValues<T extends ArrayBufferView | null>(array: T): T;
}
declare var crypto: Crypto;

interface ReadableStreamDefaultReader<R = any> {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: R }>;
  releaseLock(): void;
}
interface ReadableStream<R = any> {
  getReader(): ReadableStreamDefaultReader<R>;
}

type BlobPart = BufferSource | Blob | string;
interface Blob {
  readonly size: number;
  readonly type: string;
}
declare var Blob: {
  prototype: Blob;
  new (blobParts?: BlobPart[], options?: { type?: string }): Blob;
};

type HeadersInit = [string, string][] | Record<string, string> | Headers;
interface Headers {
  get(name: string): string | null;
  has(name: string): boolean;
  set(name: string, value: string): void;
}

type BodyInit = Blob | BufferSource | string | ReadableStream<Uint8Array>;
interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
  signal?: AbortSignal | null;
  credentials?: 'omit' | 'same-origin' | 'include';
  cache?: 'default' | 'no-store' | 'reload' | 'no-cache' | 'force-cache' | 'only-if-cached';
}
interface Body {
  readonly body: ReadableStream<Uint8Array<ArrayBuffer>> | null;
  text(): Promise<string>;
}
interface Request extends Body {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly signal: AbortSignal;
}
interface Response extends Body {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
}
declare function fetch(input: Request | string, init?: RequestInit): Promise<Response>;
