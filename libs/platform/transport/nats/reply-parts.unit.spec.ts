import { headers, type Msg } from 'nats';
import { PART_HEADER, ReplyAssembly } from './reply-parts';

/** A reply message as the inbox hands it over: only its data and headers are read. */
function reply(data: string, part?: string): Msg {
  const hdrs = headers();
  if (part !== undefined) hdrs.set(PART_HEADER, part);
  return { data: new TextEncoder().encode(data), headers: part === undefined ? undefined : hdrs } as unknown as Msg;
}

describe('a reply put back together from its parts', () => {
  it('passes a reply in one message through, and joins parts in order once the last arrives', () => {
    expect(new TextDecoder().decode(new ReplyAssembly('s').add(reply('whole')))).toBe('whole');
    const assembly = new ReplyAssembly('s');
    expect(assembly.add(reply('ab', '1/3'))).toBeUndefined();
    expect(assembly.add(reply('cd', '2/3'))).toBeUndefined();
    expect(new TextDecoder().decode(assembly.add(reply('e', '3/3')))).toBe('abcde');
  });

  it('fails at once, as unavailable, when a part is missing or out of order', () => {
    const skipped = new ReplyAssembly('svc.query');
    skipped.add(reply('ab', '1/3'));
    expect(() => skipped.add(reply('e', '3/3'))).toThrow(expect.objectContaining({ code: 'unavailable', message: expect.stringContaining('lost a part') }));
    expect(() => new ReplyAssembly('s').add(reply('cd', '2/2'))).toThrow(expect.objectContaining({ code: 'unavailable' }));
    expect(() => new ReplyAssembly('s').add(reply('x', 'garbage'))).toThrow(expect.objectContaining({ code: 'unavailable' }));
  });
});
