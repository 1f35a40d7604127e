/** The upload's own errors, answered with the app server's `ErrorDetails` body. */
import { DomainError } from '../../platform/errors.js';

/** 413: the file is larger than `RADAR_FILE_UPLOAD_MAX_SIZE`; nothing is stored. */
export class FileTooLarge extends DomainError {
  constructor(maxBytes: number) { super(413, `The file is larger than the upload limit of ${maxBytes} bytes`); }
}

/** 503: the storage cannot take the file now (unreachable, failing, refusing); nothing is stored. */
export class StorageUnavailable extends DomainError {
  constructor(message = 'The file storage is unavailable, try again later') { super(503, message); }
}

/** 503: the configured bucket does not exist (the reference's message). */
export class BucketMissing extends StorageUnavailable {
  constructor(bucket: string) { super(`S3 bucket '${bucket}' does not exist`); }
}
