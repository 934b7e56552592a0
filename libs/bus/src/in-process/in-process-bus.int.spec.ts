import { messageBusContract } from '../testing/message-bus.contract';
import { InProcessBus } from './in-process-bus';

messageBusContract('in-process', async () => ({ bus: new InProcessBus({ first: 5, max: 20 }), topic: 'test.topic' }));
