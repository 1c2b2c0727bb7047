import { DeliveryLanes } from './delivery-lanes';

describe('DeliveryLanes', () => {
  it('gives the turn to the workspace served longest ago, and none beyond its share or its endpoint\'s', () => {
    const lanes = new DeliveryLanes({ perWorkspace: 2, perWebhook: 1 });
    lanes.add('ws_a');
    lanes.add('ws_b');
    const a1 = lanes.take('ws_a', 'wh_a1');
    expect(lanes.inTurn(0)).toEqual(['ws_b', 'ws_a']); // B has had none yet
    expect(lanes.busyWebhooks()).toEqual(['wh_a1']);
    lanes.take('ws_b', 'wh_b');
    lanes.take('ws_a', 'wh_a2');
    expect(lanes.inTurn(0)).toEqual(['ws_b']); // A holds its two
    expect(lanes.inFlight).toBe(3);
    a1();
    a1(); // a second release changes nothing
    expect(lanes.inTurn(0)).toEqual(['ws_b', 'ws_a']);
    expect(lanes.busyWebhooks()).toEqual(['wh_b', 'wh_a2']);
  });

  it('skips a workspace until its next delivery is due, drops one with nothing pending, and looks again when told or when one of its attempts ends', () => {
    const lanes = new DeliveryLanes({ perWorkspace: 4, perWebhook: 4 });
    lanes.add('ws_a');
    lanes.add('ws_b');
    lanes.notDueUntil('ws_a', 5_000, lanes.versionOf('ws_a'));
    lanes.notDueUntil('ws_b', null, lanes.versionOf('ws_b'));
    expect(lanes.inTurn(1_000)).toEqual([]);
    expect(lanes.inTurn(5_000)).toEqual(['ws_a']);
    lanes.add('ws_b'); // a new delivery
    expect(lanes.inTurn(1_000)).toEqual(['ws_b']);
    const b = lanes.take('ws_b', 'wh_b');
    lanes.notDueUntil('ws_b', null, lanes.versionOf('ws_b')); // only what is in flight: kept, looked at once it ends
    expect(lanes.inTurn(1_000)).toEqual([]);
    b();
    expect(lanes.inTurn(1_000)).toEqual(['ws_b']);
  });

  it('ignores what a query read before the lane changed: a delivery added meanwhile is not lost', () => {
    const lanes = new DeliveryLanes({ perWorkspace: 4, perWebhook: 4 });
    lanes.add('ws_a');
    const seen = lanes.versionOf('ws_a');
    lanes.add('ws_a'); // the dispatcher wrote a delivery while the query ran
    lanes.notDueUntil('ws_a', null, seen); // the query found nothing
    expect(lanes.inTurn(0)).toEqual(['ws_a']);
    const release = lanes.take('ws_a', 'wh_a');
    const during = lanes.versionOf('ws_a');
    release(); // an attempt ended (it may have scheduled a retry) while a query ran
    lanes.notDueUntil('ws_a', 60_000, during);
    expect(lanes.inTurn(0)).toEqual(['ws_a']);
  });
});
