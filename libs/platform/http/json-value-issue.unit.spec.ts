import { loneSurrogateIssue, unkeepableJsonIssue, unkeepableNumber } from './json-value-issue';

const issueOf = (text: string) => unkeepableJsonIssue(text, JSON.parse(text), ['body']);

describe('unkeepableJsonIssue', () => {
  it('finds integers beyond ±(2^53 - 1) and locates them, whatever the nesting', () => {
    expect(issueOf('{"a":{"b":[0,9007199254740992]}}')).toMatchObject({ loc: ['body', 'a', 'b', 1], type: 'int_precision' });
    expect(issueOf('[-10000000000000000000]')).toMatchObject({ loc: ['body', 0], type: 'int_precision' });
    expect(issueOf('{"max":9007199254740991,"min":-9007199254740991}')).toBeNull();
  });

  it('finds numbers beyond the double range, and keeps floats within it', () => {
    expect(issueOf('{"x":1e400}')).toMatchObject({ loc: ['body', 'x'], type: 'finite_number' });
    expect(issueOf('{"x":-2.5E+308}')).toMatchObject({ loc: ['body', 'x'], type: 'finite_number' });
    expect(issueOf('{"x":1.5e300,"y":0.1,"z":1e20,"w":-0}')).toBeNull();
  });

  it('finds numbers so small they would arrive as zero, and keeps zeros and the smallest doubles', () => {
    expect(issueOf('{"tiny":1e-400}')).toMatchObject({ loc: ['body', 'tiny'], type: 'finite_number' });
    expect(issueOf('[-0.000001e-400]')).toMatchObject({ loc: ['body', 0], type: 'finite_number' });
    expect(issueOf('{"a":0.0,"b":0e-400,"c":-0.0E+5,"d":5e-324,"e":2.2250738585072014e-308}')).toBeNull();
  });

  it('never reads numbers inside strings or keys', () => {
    expect(unkeepableNumber('{"99999999999999999999":"1e999 \\" 99999999999999999999"}')).toBeNull();
  });

  it('finds lone surrogates in strings and keys, and keeps pairs', () => {
    expect(issueOf('{"a":["ok","x\\ud800"]}')).toMatchObject({ loc: ['body', 'a', 1], type: 'string_unicode' });
    expect(issueOf('{"\\udc00":1}')).toMatchObject({ loc: ['body', '\udc00'], type: 'string_unicode' });
    expect(loneSurrogateIssue('tea \ud83c\udf75', ['body'])).toBeNull();
    expect(loneSurrogateIssue('\udf75\ud83c', ['body'])).toMatchObject({ loc: ['body'] });
  });
});
