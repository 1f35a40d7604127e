/** How data messages map between the wire (FcmDataMessageDto) and the messages table. */
import { AlreadyExists } from '../errors.js';
import { messageDto, messageRow } from '../messages/codec.js';
import type { MessageCodec } from '../messages/service.js';
import type { FcmDataMessageBodyT, FcmDataMessageDtoT } from './schemas.js';

export const dataMessageCodec: MessageCodec<FcmDataMessageBodyT, FcmDataMessageDtoT> = {
  kind: 'data',
  label: 'Data message',
  toRow: (b) => messageRow(b, b.dataMap),
  dedupeFields: (r) => [r.sourceId, (r.scheduledTime as Date).getTime(), r.ttlSeconds ?? 0],
  toDto: (r) => Object.assign(messageDto(r), { dataMap: r.data }),
  // Kept from the reference: a repeated data message answers 208 ALREADY_REPORTED.
  duplicate: (existing) => new AlreadyExists(`The Data Message Already exists. Please Use update endpoint (id ${existing.id})`),
};
