import { type DynamicModule, Module } from '@nestjs/common';
import { type AppConfig, loadConfig } from '@app/config';
import { InfrastructureModule } from '@app/composition-root';
import { RelayRuntime } from '../../relay/src/relay-runtime';
import { GatewayModule } from '../../gateway/src/gateway.module';
import { IngestionModule } from '../../ingestion/src/ingestion.module';
import { MappingModule } from '../../mapping/src/mapping.module';
import { NotifierModule } from '../../notifier/src/notifier.module';
import { OutputModule } from '../../output/src/output.module';
import { ProjectorModule } from '../../projector/src/projector.module';

/** Every app in one process (on the embedded adapters by default): the default way to run the service. */
@Module({})
export class StandaloneModule {
  static forRoot(config: AppConfig = loadConfig()): DynamicModule {
    return {
      module: StandaloneModule,
      imports: [
        InfrastructureModule.forRoot(config),
        ProjectorModule,
        IngestionModule,
        MappingModule,
        OutputModule,
        NotifierModule,
        GatewayModule,
      ],
      // Feeds Kafka when BUS=kafka; with the in-process bus it does nothing.
      providers: [RelayRuntime],
    };
  }
}
