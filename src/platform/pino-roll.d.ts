/** Types for pino-roll 4 (it ships none): the options this project uses. */
declare module 'pino-roll' {
  import type SonicBoom from 'sonic-boom';

  interface PinoRollOptions {
    file: string;
    size?: string | number;
    frequency?: 'daily' | 'hourly' | number;
    extension?: string;
    dateFormat?: string;
    limit?: { count: number; removeOtherLogFiles?: boolean };
    symlink?: boolean;
    mkdir?: boolean;
    sync?: boolean;
    /** SonicBoom's: the mode a new file is created with. */
    mode?: number;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<SonicBoom>;
}
