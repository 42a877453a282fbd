export interface Envelope<T> {
  ret: number;
  msg: string;
  data: T;
}

export function ok<T>(data: T, msg = 'success'): Envelope<T> {
  return { ret: 0, msg, data };
}

export function done(msg = 'success'): Envelope<null> {
  return { ret: 0, msg, data: null };
}
