import { Module } from '@nestjs/common';
import { InfrastructureModule, runWorker } from '@app/infrastructure';
import { MappingModule } from './mapping.module';

@Module({ imports: [InfrastructureModule.forRoot(), MappingModule] })
class MappingApp {}

void runWorker(MappingApp, 'mapping');
