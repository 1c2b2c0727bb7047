import { headers, type Msg } from 'nats';
import { PART_ACK_HEADER, PART_HEADER, ReplyAssembly } from './reply-parts';

/** A reply message as the inbox hands it over: only its data and headers are read. */
function reply(data: string, part?: string, ack?: string): Msg {
  const hdrs = headers();
  if (part !== undefined) hdrs.set(PART_HEADER, part);
  if (ack !== undefined) hdrs.set(PART_ACK_HEADER, ack);
  return { data: new TextEncoder().encode(data), headers: part === undefined ? undefined : hdrs } as unknown as Msg;
}

const ignoreAcks = (): void => undefined;

describe('a reply put back together from its parts', () => {
  it('passes a reply in one message through, and joins parts in order once the last arrives, acknowledging each part with more after it', () => {
    expect(new TextDecoder().decode(new ReplyAssembly('s', ignoreAcks).add(reply('whole')))).toBe('whole');
    const acks: string[] = [];
    const assembly = new ReplyAssembly('s', (subject, part) => acks.push(`${subject} ${part}`));
    expect(assembly.add(reply('ab', '1/3', '_INBOX.acks.7'))).toBeUndefined();
    expect(assembly.add(reply('cd', '2/3'))).toBeUndefined();
    expect(new TextDecoder().decode(assembly.add(reply('e', '3/3')))).toBe('abcde');
    expect(acks).toEqual(['_INBOX.acks.7 1', '_INBOX.acks.7 2']);
  });

  it('fails at once, as unavailable, when a part is missing or out of order, or the first names nowhere to acknowledge', () => {
    const skipped = new ReplyAssembly('svc.query', ignoreAcks);
    skipped.add(reply('ab', '1/3', 'acks.1'));
    expect(() => skipped.add(reply('e', '3/3'))).toThrow(expect.objectContaining({ code: 'unavailable', message: expect.stringContaining('lost a part') }));
    expect(() => new ReplyAssembly('s', ignoreAcks).add(reply('cd', '2/2'))).toThrow(expect.objectContaining({ code: 'unavailable' }));
    expect(() => new ReplyAssembly('s', ignoreAcks).add(reply('x', 'garbage'))).toThrow(expect.objectContaining({ code: 'unavailable' }));
    expect(() => new ReplyAssembly('s', ignoreAcks).add(reply('ab', '1/2'))).toThrow(expect.objectContaining({ code: 'unavailable', message: expect.stringContaining('acknowledgements') }));
  });
});
