import 'reflect-metadata';

// Every gateway a test starts (in process, or spawned with this environment) parses each
// success reply with its route's response schema: a reply its OpenAPI document does not
// describe answers 500 and fails the test (README, "Layout").
process.env['LORE_CHECK_REPLIES'] ??= '1';
