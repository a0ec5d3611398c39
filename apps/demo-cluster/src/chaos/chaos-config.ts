// What every part of the chaos run shares.

/** The namespace every object of the chaos run lives in. */
export const NAMESPACE = 'chaos';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
